import { ThreadPlanRepository } from '@caravel/db';
import { startFakeOpenAi, type FakeLlmServer } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachPair, startPair, type PlatformPair } from './testing/platform-pairs.js';
import { scenarioOutcome, sendFollowUp, startScenario } from './testing/scenario-run.js';

// Plan mode end to end through dispatch, the runner and the sandbox broker, on both pairs: the
// model's tool list is read from the requests the fake provider received.
const MUTATING = ['write_file', 'edit_file', 'execute', 'commit_and_open_pr'];
const MODEL = { model: 'openai-compatible:plan-model' };

let fake: FakeLlmServer;

beforeAll(async () => {
  fake = await startFakeOpenAi();
});

afterAll(async () => {
  await fake.close();
});

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, args }] });

/** The tool names offered on each model request since `from`. */
function offeredSince(from: number): string[][] {
  return fake.requests.slice(from).map((request) => {
    const tools = (request.body?.['tools'] ?? []) as { function?: { name?: string } }[];
    return tools.map((tool) => tool.function?.name ?? '?');
  });
}

await describeEachPair('plan mode, end to end', (kind) => {
  let pair: PlatformPair;

  beforeAll(async () => {
    pair = await startPair(kind, {
      OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
      SANDBOX_PROVIDER: 'bwrap',
    });
  }, 60_000);

  afterAll(async () => {
    await pair?.close();
  });

  it('offers no mutating tool while planning, saves the plan, and refuses a non-owner approval', async () => {
    const before = fake.requests.length;
    fake.enqueue(
      call('enter_plan_mode', { user_request: 'make a plan first' }),
      call('write_file', { path: 'src/slugify.js', content: 'broken' }),
      call('save_plan', {
        title: 'Fix slugify',
        content: '# Plan\n1. Trim every dash.\n<script>x</script>',
      }),
      call('submit', {}),
    );
    const started = await startScenario(pair, {
      prompt: 'Please make a plan first: how would you fix the trailing dash?',
      options: MODEL,
    });
    const first = await scenarioOutcome(pair, started);

    expect(first.run.exitStatus).toBe('submitted');
    const planning = offeredSince(before);
    expect(planning).toHaveLength(4);
    expect(planning[0]).toEqual(expect.arrayContaining(MUTATING));
    for (const names of planning.slice(1)) {
      for (const mutating of MUTATING) expect(names).not.toContain(mutating);
    }
    expect(first.diff ?? '').not.toContain('broken');
    const plans = new ThreadPlanRepository(pair.database.db);
    expect(await plans.latest(started.threadId)).toMatchObject({
      revision: 1,
      title: 'Fix slugify',
      content: '# Plan\n1. Trim every dash.\n&lt;script>x&lt;/script>',
      status: 'awaiting_approval',
    });

    const approving = fake.requests.length;
    fake.enqueue(call('approve_plan', { feedback: 'go' }), call('submit', {}));
    const runId = await sendFollowUp(pair, started.threadId, 'approved, go ahead');
    const second = await scenarioOutcome(pair, started, runId);

    expect(second.run.exitStatus).toBe('submitted');
    const refusal = second.traj.trajectory.find((step) => step.action.includes('approve_plan'));
    expect(refusal?.observation).toMatch(/FORBIDDEN.*Only the thread's owner/);
    for (const names of offeredSince(approving)) {
      for (const mutating of MUTATING) expect(names).not.toContain(mutating);
    }
    expect((await plans.latest(started.threadId))?.status).toBe('awaiting_approval');
  }, 240_000);
});
