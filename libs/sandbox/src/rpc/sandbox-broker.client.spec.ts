import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { SandboxCallerAlive } from '@caravel/contracts';
import { AppError, isAppError } from '@caravel/errors';
import { randomUUID } from 'node:crypto';
import { SandboxBrokerClient } from './sandbox-broker.client.js';
import type { SandboxRequester } from './sandbox-requester.js';

/** One request the client sent: what, and its answer to give (or a TIMEOUT at its deadline). */
interface Sent {
  subject: string;
  payload: Record<string, unknown>;
  timeoutMs: number;
  answer(value: unknown): void;
}

/**
 * A bus whose requests are never answered unless told to (each fails TIMEOUT at its deadline, as
 * NATS does when the responder died), and which keeps the client's served subjects to call them.
 */
class FakeBus implements SandboxRequester {
  readonly sent: Sent[] = [];
  private readonly served = new Map<
    string,
    (request: unknown, subject: string) => Promise<unknown>
  >();

  request<T>(subject: string, payload: unknown, options?: { timeoutMs?: number }): Promise<T> {
    const timeoutMs = options?.timeoutMs ?? 60_000;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new AppError('TIMEOUT', `no answer on ${subject}`, { retryable: true })),
        timeoutMs,
      );
      this.sent.push({
        subject,
        payload: payload as Record<string, unknown>,
        timeoutMs,
        answer: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
      });
    });
  }

  serve(subject: string, handler: (request: unknown, subject: string) => Promise<unknown>) {
    this.served.set(subject, handler);
    return Promise.resolve({ drain: () => Promise.resolve() });
  }

  /** The broker's liveness probe for the call `sent` carries, as a broker sends it. */
  async probe(sent: Sent, everyMs = 1_000): Promise<unknown> {
    const { callerId, callId } = sent.payload as { callerId: string; callId: string };
    const subject = SandboxCallerAlive.subjectFor(callerId);
    const alive = this.served.get(subject);
    if (!alive) throw new Error(`nothing serves the probes of caller ${callerId}`);
    return alive({ callerId, callId, everyMs }, subject);
  }
}

/** What the call settled with so far: nothing yet, a value, or an error. */
function outcomeOf<T>(call: Promise<T>): { value?: T; error?: unknown; settled: boolean } {
  const outcome: { value?: T; error?: unknown; settled: boolean } = { settled: false };
  call.then(
    (value) => Object.assign(outcome, { value, settled: true }),
    (error: unknown) => Object.assign(outcome, { error, settled: true }),
  );
  return outcome;
}

const threadId = randomUUID();
const repository = { owner: 'acme', name: 'widgets', cloneUrl: '/srv/widgets.git' };

/** Each long request of the client, and the op its subject ends with. */
const LONG_CALLS: {
  what: string;
  op: string;
  call(client: SandboxBrokerClient): Promise<unknown>;
}[] = [
  {
    what: 'push',
    op: 'git-push',
    call: (c) => c.push({ threadId, branch: 'caravel/t1', repository, commitMessage: 'work' }),
  },
  { what: 'commit', op: 'git-commit', call: (c) => c.commitAll(threadId, 'work') },
  { what: 'diff', op: 'git-diff', call: (c) => c.diffSince(threadId, 'main') },
  {
    what: 'recreate',
    op: 'recreate',
    call: (c) => c.recreate({ threadId, branch: 'caravel/t1', repository }),
  },
];

describe('SandboxBrokerClient long requests', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  /** A client on a fresh fake bus that has sent `call`: the bus, the client, the call's outcome. */
  async function sending(call: (client: SandboxBrokerClient) => Promise<unknown>) {
    const bus = new FakeBus();
    const client = await SandboxBrokerClient.open(bus);
    const outcome = outcomeOf(call(client));
    await jest.advanceTimersByTimeAsync(0);
    return { bus, client, outcome };
  }

  it.each(LONG_CALLS)(
    'fails a $what soon after the probes of the broker working on it stop, and sends it no more',
    async ({ what, op, call }) => {
      const { bus, client, outcome } = await sending(call);
      const [sent] = bus.sent;
      expect(sent?.subject).toBe(`sandbox.${threadId}.${op}`);
      expect(sent?.payload).toMatchObject({
        callerId: expect.any(String),
        callId: expect.any(String),
      });
      for (let second = 0; second < 30; second += 1) {
        await expect(bus.probe(sent!)).resolves.toEqual({ alive: true });
        await jest.advanceTimersByTimeAsync(1_000);
      }
      expect(outcome.settled).toBe(false);
      // The broker is killed: ten intervals (at least 15 s) of silence, then 3 s to confirm.
      await jest.advanceTimersByTimeAsync(18_000);
      expect(outcome.settled).toBe(true);
      expect(isAppError(outcome.error) && outcome.error.code).toBe('DEPENDENCY_UNAVAILABLE');
      expect(isAppError(outcome.error) && outcome.error.retryable).toBe(true);
      expect(isAppError(outcome.error) && outcome.error.details).toMatchObject({
        reason: 'broker_gone',
      });
      expect(outcome.error).toHaveProperty('message', expect.stringContaining(`this ${what}`));
      // Not sent again when the dead broker's request times out: whether it was done is unknown.
      await jest.advanceTimersByTimeAsync(1_000_000);
      expect(bus.sent).toHaveLength(1);
      expect(client.calls.size).toBe(0);
    },
  );

  it('sends an acquire again, as a new call, soon after the probes of the broker setting it up stop', async () => {
    const acquire = (c: SandboxBrokerClient) => c.acquire({ threadId, branch: 'b', repository });
    const { bus, client, outcome } = await sending(acquire);
    const [first] = bus.sent;
    expect(first?.subject).toBe(`sandbox.${threadId}.acquire`);
    for (let second = 0; second < 5; second += 1) {
      await bus.probe(first!);
      await jest.advanceTimersByTimeAsync(1_000);
    }
    // The broker is killed mid-clone (last probe 1 s ago): sent again once the silence (15 s)
    // is confirmed (3 s), not at the attempt's 150 s.
    await jest.advanceTimersByTimeAsync(16_000);
    expect(bus.sent).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(bus.sent).toHaveLength(2);
    const retry = bus.sent[1]!;
    expect(retry.subject).toBe(first!.subject);
    expect(retry.payload['callId']).not.toBe(first!.payload['callId']);
    expect(retry.payload['callerId']).toBe(first!.payload['callerId']);
    expect(outcome.settled).toBe(false);
    retry.answer({
      threadId,
      sandboxId: 'sbx-2',
      provider: 'local',
      workdir: '/workspace/repo',
      outcome: 'created',
      branch: 'b',
      baseCommit: 'abc123',
      origin: null,
    });
    await jest.advanceTimersByTimeAsync(0);
    expect(outcome.error).toBeUndefined();
    expect(outcome.settled).toBe(true);
    expect(client.calls.size).toBe(0);
  });

  it('returns the answer of a push whose broker probes it however long it takes', async () => {
    const { bus, client, outcome } = await sending(LONG_CALLS[0]!.call);
    const sent = bus.sent[0]!;
    for (let second = 0; second < 290; second += 1) {
      await bus.probe(sent);
      await jest.advanceTimersByTimeAsync(1_000);
    }
    sent.answer({ pushed: true, origin: repository.cloneUrl, commitSha: null });
    await jest.advanceTimersByTimeAsync(0);
    expect(outcome.value).toEqual({ pushed: true, origin: repository.cloneUrl, commitSha: null });
    expect(client.calls.size).toBe(0);
  });

  it('leaves a push unwatched when its broker sends no probes (an older one): same request again after each 300 s attempt', async () => {
    const { bus, outcome } = await sending(LONG_CALLS[0]!.call);
    await jest.advanceTimersByTimeAsync(299_000);
    expect(outcome.settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(bus.sent).toHaveLength(2);
    const [first, second] = bus.sent;
    expect(second?.payload).toEqual(first?.payload);
    expect(second?.timeoutMs).toBe(300_000);
    // The retry, sent to a broker that probes it, is watched like the first attempt.
    await bus.probe(second!);
    await jest.advanceTimersByTimeAsync(18_000);
    expect(isAppError(outcome.error) && outcome.error.details).toMatchObject({
      reason: 'broker_gone',
    });
    await jest.advanceTimersByTimeAsync(1_000_000);
    expect(bus.sent).toHaveLength(2);
  });
});
