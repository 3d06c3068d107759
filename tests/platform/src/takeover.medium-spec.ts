import { StopThreadV1, TriggerReceivedV1 } from '@caravel/contracts';
import { RunRepository, ThreadStopRepository } from '@caravel/db';
import { sql } from 'kysely';
import { FakeSlack, startFakeOpenAi, type FakeLlmServer } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { attachThread } from '@caravel/cli';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import {
  scenarioOutcome,
  startScenario,
  scenarioTrigger,
  startScenarioFrom,
  until as eventually,
} from './harness/scenario-run.js';

// Human takeover: `caravel attach` follows a live run and a person's command runs in the thread's
// sandbox between the agent's steps, recorded in the history and trajectory under their name.
const TOKEN = 'takeover-test-token-0123456789';
const SLACK_TOKEN = 'xoxb-takeover';
const CHANNEL = 'C-takeover';
let fake: FakeLlmServer;
let slack: FakeSlack;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  slack = new FakeSlack().addToken(SLACK_TOKEN).addChannel(CHANNEL);
  await slack.listen();
});

afterAll(async () => {
  await fake.close();
  await slack.close();
});

/** What Caravel posted in a Slack thread. */
function botPosts(threadTs: string): string[] {
  return slack.messages
    .filter((m) => m.thread_ts === threadTs && m.ts !== threadTs && m.bot_id)
    .map((m) => m.text);
}

async function until(predicate: () => boolean, what: () => string): Promise<void> {
  for (let i = 0; i < 250; i += 1) {
    if (predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what()}`);
}

await describeEachPair('human takeover', (kind) => {
  let pair: PlatformPair;

  beforeAll(async () => {
    pair = await startPair(kind, {
      DASHBOARD_TOKEN: TOKEN,
      OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_API_URL: slack.apiUrl,
    });
  }, 60_000);

  afterAll(async () => {
    await pair?.close();
  });

  it('a command typed in caravel attach runs between the steps and enters history and trajectory', async () => {
    const before = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'execute', args: { command: 'echo one > one.txt' } }] },
      { toolCalls: [{ name: 'execute', args: { command: 'ls' } }], delayMs: 2000 },
      { toolCalls: [{ name: 'submit', args: {} }] },
    );
    const started = await startScenario(pair, {
      prompt: 'write one.txt',
      options: { model: 'openai-compatible:takeover-model' },
    });
    // Attach while the agent's second model call is in flight, and type a command.
    await until(
      () => fake.requests.length >= before + 2,
      () => `the second model call (${fake.requests.length - before} made)`,
    );
    const input = new PassThrough();
    const seen: string[] = [];
    const stop = new AbortController();
    const attached = attachThread({
      url: pair.host.url,
      threadId: started.threadId,
      as: 'alice',
      token: TOKEN,
      input,
      write: (line) => seen.push(line),
      pollMs: 100,
      signal: stop.signal,
    });
    input.write('!echo human > human.txt\n');
    await until(
      () => seen.some((line) => line.startsWith('queued')),
      () => `the command to be queued: ${seen.join(' | ')}`,
    );

    const out = await scenarioOutcome(pair, started);
    await until(
      () => seen.some((line) => line.includes('[human:synthetic:alice]')),
      () => `the human step: ${seen.join(' | ')}`,
    );
    stop.abort();
    await attached;

    expect(out.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(out.traj.info.submission).toContain('human.txt');
    // The agent's next call read what the person ran, as a message.
    const third = JSON.stringify(fake.requests[before + 2]?.body?.['messages']);
    expect(third).toContain('ran a command in the sandbox');
    expect(third).toContain('echo human > human.txt');
    // The trajectory records the command as a step of its own, under the person's name.
    const human = out.traj.trajectory.find(
      (step) =>
        (step.extra_info?.['caravel'] as { actor?: string } | undefined)?.actor ===
        'human:synthetic:alice',
    );
    expect(human?.action).toBe('execute {"command":"echo human > human.txt"}');
    expect(out.traj.info.model_stats?.api_calls).toBe(3);
    expect(seen.some((line) => line.includes('step') && line.includes('echo one'))).toBe(true);
  });

  it('a stop from the dashboard ends the run interrupted, starts nothing after it and says so once', async () => {
    const before = fake.requests.length;
    // The second model call would answer (submit) only after 15 s: the stop must come first.
    fake.enqueue(
      { toolCalls: [{ name: 'execute', args: { command: 'echo one > one.txt' } }] },
      { toolCalls: [{ name: 'submit', args: {} }], delayMs: 15_000 },
    );
    const threadTs = slack.seed(CHANNEL, '<@UBOT> a long task', 'U-person');
    const started = await startScenarioFrom(
      pair,
      { prompt: 'a long task', options: { model: 'openai-compatible:takeover-model' } },
      { source: 'slack', replyTo: { channel: CHANNEL, threadTs } },
    );
    await until(
      () => fake.requests.length >= before + 2,
      () => `the second model call (${fake.requests.length - before} made)`,
    );
    const stop = () =>
      fetch(`${pair.host.url}/api/threads/${started.threadId}/stop`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ author: 'alice' }),
      });
    expect((await stop()).status).toBe(202);

    const out = await scenarioOutcome(pair, started);
    expect(out.run).toMatchObject({ status: 'interrupted', exitStatus: 'exit_interrupted' });
    await until(
      () => botPosts(threadTs).length > 0,
      () => 'the acknowledgement',
    );
    // Stopping a thread with nothing running does nothing, and no run starts after the stop.
    expect((await stop()).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const runs = await new RunRepository(pair.database.db).listByThread(started.threadId);
    expect(runs.map((run) => run.status)).toEqual(['interrupted']);
    expect(fake.requests.length).toBe(before + 2);
    expect(botPosts(threadTs)).toEqual([expect.stringMatching(/^Stopped\./)]);
  });

  it('a ❌ handled before the message sent ahead of it starts nothing and says so once', async () => {
    const before = fake.requests.length;
    const threadTs = slack.seed(CHANNEL, '<@UBOT> a task taken back at once', 'U-person');
    const { trigger, started } = await scenarioTrigger(
      {
        prompt: 'a task taken back at once',
        options: { model: 'openai-compatible:takeover-model' },
      },
      { source: 'slack', replyTo: { channel: CHANNEL, threadTs }, author: 'U-person' },
    );
    // The ❌ came a second after the message, and its consumer got to it first.
    const stop = StopThreadV1.create(
      {
        threadId: started.threadId,
        source: 'slack',
        requestedBy: { externalId: 'U-person' },
        requestId: `Ev-${randomUUID()}`,
      },
      { source: 'ingress', occurredAt: new Date(Date.parse(trigger.occurredAt) + 1_000) },
    );
    await pair.bus.publish(StopThreadV1, stop);
    const stops = new ThreadStopRepository(pair.database.db);
    await eventually(
      async () => (await stops.since(started.threadId, new Date(0))) ?? undefined,
      'the stop recorded',
    );
    await pair.bus.publish(TriggerReceivedV1, trigger);

    const runs = new RunRepository(pair.database.db);
    const run = await eventually(async () => {
      const found = await runs.get(started.runId);
      return found && found.status !== 'queued' ? found : undefined;
    }, "the trigger's run settled");
    expect(run).toMatchObject({
      status: 'interrupted',
      exitStatus: 'exit_interrupted',
      summary: 'stopped by slack:U-person before it started',
    });
    await until(
      () => botPosts(threadTs).length > 0,
      () => 'the acknowledgement',
    );
    expect(botPosts(threadTs)).toEqual([expect.stringMatching(/^Stopped\./)]);
    expect(await runs.listByThread(started.threadId)).toHaveLength(1);
    expect(fake.requests.length).toBe(before);
  });

  it('replays a finished run from the dashboard in a fresh sandbox; a tampered recording differs', async () => {
    fake.enqueue(
      {
        toolCalls: [
          { name: 'execute', args: { command: 'echo replayed > replay.txt && cat replay.txt' } },
        ],
      },
      { toolCalls: [{ name: 'submit', args: {} }] },
    );
    const started = await startScenario(pair, {
      prompt: 'write replay.txt',
      options: { model: 'openai-compatible:replay-model' },
    });
    const out = await scenarioOutcome(pair, started);
    expect(out.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    const replays = `${pair.host.url}/api/threads/${started.threadId}/replays`;
    type Replay = {
      status: string;
      steps: { name: string; outcome: string; difference: string | null }[];
      comparison: { identical: boolean; byteIdentical: boolean; difference: string } | null;
      error: string | null;
    };
    const read = async (url: string) =>
      (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
    const replay = async (): Promise<Replay> => {
      const asked = await fetch(replays, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ author: 'alice' }),
      });
      expect(asked.status).toBe(202);
      const { replayId } = (await asked.json()) as { replayId: string };
      return eventually(async () => {
        const found = (await read(`${replays}/${replayId}`)) as Replay;
        return found.status === 'completed' || found.status === 'failed' ? found : undefined;
      }, `replay ${replayId} to end`);
    };

    const same = await replay();
    expect(same).toMatchObject({ status: 'completed', error: null });
    expect(same.comparison).toMatchObject({ identical: true, byteIdentical: true });
    expect(same.steps[0]).toMatchObject({ name: 'execute', outcome: 'matched', difference: null });

    // Tamper with the recording: the call's observation and the submitted patch.
    const db = pair.database.db;
    const rows = await db
      .selectFrom('run_events')
      .select(['id', 'type', 'data'])
      .where('run_id', '=', out.run.id)
      .where('type', 'in', ['evt.run.step', 'evt.run.finished'])
      .execute();
    // Only what the run saw and submitted changes, not the command it ran.
    const tamper = (text: string) => text.replaceAll('replayed', 'tampered');
    for (const row of rows) {
      const data = (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as {
        results?: { content: string }[];
        submission?: string | null;
      };
      for (const result of data.results ?? []) result.content = tamper(result.content);
      if (typeof data.submission === 'string') data.submission = tamper(data.submission);
      await sql`update run_events set data = ${JSON.stringify(data)}::jsonb where id = ${row.id}`.execute(
        db,
      );
    }
    const differs = await replay();
    expect(differs.status).toBe('completed');
    expect(differs.steps[0]).toMatchObject({ outcome: 'differed' });
    expect(differs.steps[0]?.difference).toContain('tampered');
    expect(differs.comparison).toMatchObject({ identical: false, difference: 'content' });
    const listed = (await read(replays)) as unknown[];
    expect(listed).toHaveLength(2);
    // The thread's event stream carries them too: each request, its calls and its verdict.
    const events = (await read(`${pair.host.url}/api/threads/${started.threadId}/events`)) as {
      type: string;
    }[];
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === 'cmd.replay.run')).toHaveLength(2);
    expect(types.filter((type) => type === 'evt.replay.finished')).toHaveLength(2);
  });

  it('refuses an action without the dashboard token', async () => {
    const started = await startScenario(pair, {
      prompt: 'nothing',
      options: { model: 'openai-compatible:takeover-model' },
    });
    fake.enqueue({ toolCalls: [{ name: 'submit', args: {} }] });
    await scenarioOutcome(pair, started);
    const response = await fetch(`${pair.host.url}/api/threads/${started.threadId}/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-token-000000' },
      body: JSON.stringify({ author: 'mallory', kind: 'command', text: 'cat /etc/passwd' }),
    });
    expect(response.status).toBe(401);
  });

  it("the read-only chat agent answers about the thread's code and is offered no tool that writes", async () => {
    const started = await startScenario(pair, {
      prompt: 'nothing yet',
      options: { model: 'openai-compatible:takeover-model' },
    });
    fake.enqueue({ toolCalls: [{ name: 'submit', args: {} }] });
    await scenarioOutcome(pair, started);
    const before = fake.requests.length;
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', args: { path: 'src/slugify.js' } }] },
      {
        toolCalls: [
          {
            name: 'reply_to_user',
            args: { text: 'slugify lower-cases, then joins words with dashes.' },
          },
        ],
      },
      { text: 'done' },
    );
    const response = await fetch(`${pair.host.url}/api/threads/${started.threadId}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ author: 'alice', text: 'What does slugify do?' }),
    });
    const body = (await response.json()) as {
      answer?: string;
      toolCalls?: number;
      message?: string;
    };

    expect({ status: response.status, body }).toMatchObject({
      status: 200,
      body: { answer: 'slugify lower-cases, then joins words with dashes.' },
    });
    // The file it read reached the model; no call offered a tool that writes or runs anything.
    const calls = fake.requests.slice(before);
    expect(JSON.stringify(calls[1]?.body?.['messages'])).toContain('export function slugify');
    const offered = new Set(
      calls.flatMap((call) =>
        ((call.body?.['tools'] as { function: { name: string } }[] | undefined) ?? []).map(
          (tool) => tool.function.name,
        ),
      ),
    );
    expect(offered.has('read_file')).toBe(true);
    for (const writer of ['execute', 'write_file', 'edit_file', 'commit_and_open_pr', 'submit'])
      expect(offered.has(writer)).toBe(false);
  });

  it("uses the person's profile model when the thread names none, and refuses an unknown model", async () => {
    const put = (identity: string, body: unknown) =>
      fetch(`${pair.host.url}/api/profiles/${identity}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify(body),
      });
    expect((await put('synthetic:scenario', { model: 'nonexistent:model-x' })).status).toBe(400);
    expect(
      (await put('synthetic:scenario', { model: 'openai-compatible:profile-model' })).status,
    ).toBe(200);
    fake.enqueue({ toolCalls: [{ name: 'submit', args: {} }] });

    const started = await startScenario(pair, { prompt: 'nothing to do', options: {} });
    const out = await scenarioOutcome(pair, started);

    expect(out.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(out.traj.replay_config).toContain('openai-compatible:profile-model');
    expect((await put('synthetic:scenario', { model: null })).status).toBe(200);
  });
});
