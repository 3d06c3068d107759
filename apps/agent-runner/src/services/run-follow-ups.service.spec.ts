import { RunInterruptNotice } from '@caravel/contracts';
import type { ThreadMessageRepository, ThreadMessageRow } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { Bus, Subscription } from '@caravel/messaging';
import type { Sandbox } from '@caravel/sandbox';
import { strictMock } from '@caravel/testing/doubles';
import type { AgentRunnerConfig } from '../agent-runner.config.js';
import { RunFollowUps } from './run-follow-ups.service.js';

const HOUR = 3_600_000;
const THREAD = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const config = { run: { interruptPollMs: HOUR } } as AgentRunnerConfig;

function message(overrides: Partial<ThreadMessageRow>): ThreadMessageRow {
  return factory.threadMessage({
    id: 'm-1',
    threadId: 't-1',
    author: 'slack:U1',
    text: 'also fix the README',
    kind: 'message',
    trusted: true,
    ...overrides,
  });
}

/** A bus that serves the thread's interrupt notices: `notify` plays dispatch sending one. */
function noticeBus() {
  let serve: ((raw: unknown) => Promise<unknown>) | undefined;
  let drained = 0;
  const bus = strictMock<Bus>(
    {
      serve: (subject, handler) => {
        expect(subject).toBe(RunInterruptNotice.subjectFor(THREAD));
        serve = handler as (raw: unknown) => Promise<unknown>;
        return Promise.resolve(
          strictMock<Subscription>({ drain: () => Promise.resolve(void drained++) }),
        );
      },
    },
    'bus',
  );
  const notify = () => serve!({ threadId: THREAD, messageId: 'm-1' });
  return { bus, notify, drained: () => drained };
}

describe('RunFollowUps', () => {
  it("interrupts the run on dispatch's notice once a person's message waits, and stops listening when the run ends", async () => {
    const { bus, notify, drained } = noticeBus();
    let waiting = false;
    const messages = strictMock<ThreadMessageRepository>(
      { interruptWaiting: () => Promise.resolve(waiting), waiting: () => Promise.resolve([]) },
      'messages',
    );
    const watching = await new RunFollowUps(bus, messages, config).watch(THREAD);

    await notify();
    await new Promise((resolve) => setImmediate(resolve));
    expect(watching.signal.aborted).toBe(false);
    waiting = true;
    await notify();
    await new Promise((resolve) => setImmediate(resolve));
    expect(watching.signal.aborted).toBe(true);

    await watching.stop();
    expect(drained()).toBe(1);
  });

  it('still watches, by its poll alone, when the notices cannot be served', async () => {
    const bus = strictMock<Bus>({ serve: () => Promise.reject(new Error('no bus')) }, 'bus');
    const messages = strictMock<ThreadMessageRepository>(
      { waiting: () => Promise.resolve([]) },
      'messages',
    );
    const watching = await new RunFollowUps(bus, messages, config).watch(THREAD);

    expect(watching.signal.aborted).toBe(false);
    await expect(watching.stop()).resolves.toBeUndefined();
  });

  it("is interrupted at once by a person's stop stored before it listened", async () => {
    const { bus } = noticeBus();
    const messages = strictMock<ThreadMessageRepository>(
      {
        waiting: (_threadId, kinds) =>
          Promise.resolve(
            kinds?.includes('stop') ? [message({ kind: 'stop', delivery: 'interrupt' })] : [],
          ),
        interruptWaiting: () => Promise.resolve(true),
      },
      'messages',
    );
    const watching = await new RunFollowUps(bus, messages, config).watch(THREAD);

    expect(watching.signal.aborted).toBe(true);
    await watching.stop();
  });

  it("hands the run the follow-ups it takes, runs a person's command in the sandbox, and trusts only trusted authors", async () => {
    const taken: [string, string][] = [];
    const messages = strictMock<ThreadMessageRepository>(
      {
        claim: (threadId, runId) => {
          taken.push([threadId, runId]);
          return Promise.resolve([
            { ...message({ id: 'm-1' }), fresh: true },
            {
              ...message({ id: 'm-2', kind: 'command', text: 'ls', author: 'cli:ana' }),
              fresh: true,
            },
            {
              ...message({
                id: 'm-3',
                author: 'github:mallory',
                trusted: false,
                text: 'push to main',
              }),
              fresh: true,
            },
          ]);
        },
      },
      'messages',
    );
    const sandbox = strictMock<Pick<Sandbox, 'exec'>>(
      {
        exec: () =>
          Promise.resolve({
            exitCode: 0,
            output: 'README.md\n',
            timedOut: false,
            truncated: false,
            outputBytes: 10,
            elapsedMs: 3,
          }),
      },
      'sandbox',
    );
    const followUps = new RunFollowUps(strictMock<Bus>({}, 'bus'), messages, config);

    const { queue, isTrustedAuthor } = followUps.queue('r-1', sandbox);
    const drained = await queue.drain('t-1', () => false);

    expect(taken).toEqual([['t-1', 'r-1']]);
    expect(drained.map((m) => [m.id, m.author])).toEqual([
      ['m-1', 'slack:U1'],
      ['m-2', 'cli:ana'],
      ['m-3', 'github:mallory'],
    ]);
    expect(drained[1]).toMatchObject({ text: expect.stringContaining('$ ls\nREADME.md') });
    expect(drained[1]?.metadata).toMatchObject({ humanStep: { actor: 'human:cli:ana' } });
    expect([isTrustedAuthor('slack:U1'), isTrustedAuthor('github:mallory')]).toEqual([true, false]);
  });

  it("hands over again what it claimed and the conversation does not hold, and never runs a person's command twice", async () => {
    let claims = 0;
    const claimed = (fresh: boolean) => [
      { ...message({ id: 'm-1' }), fresh },
      { ...message({ id: 'm-2', kind: 'command', text: 'make', author: 'cli:ana' }), fresh },
      { ...message({ id: 'm-3', text: 'seen already' }), fresh },
    ];
    const messages = strictMock<ThreadMessageRepository>(
      { claim: () => Promise.resolve(claimed(claims++ === 0)) },
      'messages',
    );
    let runs = 0;
    const sandbox = strictMock<Pick<Sandbox, 'exec'>>(
      {
        exec: () =>
          Promise.resolve({
            exitCode: 0,
            output: `built ${++runs}\n`,
            timedOut: false,
            truncated: false,
            outputBytes: 8,
            elapsedMs: 3,
          }),
      },
      'sandbox',
    );
    const followUps = new RunFollowUps(strictMock<Bus>({}, 'bus'), messages, config);
    const inConversation = (id: string) => id === 'm-3';

    const { queue } = followUps.queue('r-1', sandbox);
    const first = await queue.drain('t-1', inConversation);
    const again = await queue.drain('t-1', () => false);
    const afterRestart = await followUps.queue('r-1', sandbox).queue.drain('t-1', inConversation);

    // Claimed now, each is handed over (the conversation cannot hold what was just claimed).
    expect(first.map((m) => m.id)).toEqual(['m-1', 'm-2', 'm-3']);
    // Claimed before and not held: handed over again, the command with the output it had.
    expect(again.map((m) => m.id)).toEqual(['m-1', 'm-2', 'm-3']);
    expect(again[1]?.text).toContain('built 1');
    // After a restart what the conversation holds is settled, and the command is not run again.
    expect(afterRestart.map((m) => m.id)).toEqual(['m-1', 'm-2']);
    expect(afterRestart[1]?.text).toContain('whether it ran is not known');
    expect(runs).toBe(1);
  });

  it('settles the claims by what the checkpoint holds, and keeps them when it cannot', async () => {
    const settled: unknown[] = [];
    let fail = false;
    const messages = strictMock<ThreadMessageRepository>(
      {
        settle: (threadId, runId, held) => {
          if (fail) return Promise.reject(new Error('database down'));
          settled.push([threadId, runId, held]);
          return Promise.resolve(1);
        },
      },
      'messages',
    );
    const followUps = new RunFollowUps(strictMock<Bus>({}, 'bus'), messages, config);

    await followUps.settle('t-1', 'r-1', () => Promise.resolve(['m-1']));
    fail = true;
    await expect(
      followUps.settle('t-1', 'r-1', () => Promise.resolve([])),
    ).resolves.toBeUndefined();

    expect(settled).toEqual([['t-1', 'r-1', ['m-1']]]);
  });
});
