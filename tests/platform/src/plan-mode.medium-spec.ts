import { ThreadPlanRepository } from '@caravel/db';
import type { TriggerSource } from '@caravel/contracts';
import { expect, it } from '@jest/globals';
import { describeEachPair } from './harness/platform-pairs.js';
import {
  scenarioOutcome,
  sendFollowUp,
  startScenario,
  type ScenarioOutcome,
  type StartedScenario,
} from './harness/scenario-run.js';
import { fakeOpenAiForFile, pairForSuite, SLOW_RUN_TIMEOUT_MS } from './harness/suite-fixtures.js';

// Plan mode end to end through dispatch, the runner and the sandbox broker, on both pairs: the
// model's tool list is read from the requests the fake provider received.
const MUTATING = ['write_file', 'edit_file', 'execute', 'commit_and_open_pr'];
const MODEL = { model: 'openai-compatible:plan-model' };
/** The thread's owner: `startScenario` asks as `synthetic:scenario`. */
const OWNER = { source: 'synthetic' as TriggerSource, author: 'scenario' };

const fake = fakeOpenAiForFile();

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, args }] });

/** The tool names offered on each model request since `from`. */
function offeredSince(from: number): string[][] {
  return fake()
    .requests.slice(from)
    .map((request) => {
      const tools = (request.body?.['tools'] ?? []) as { function?: { name?: string } }[];
      return tools.map((tool) => tool.function?.name ?? '?');
    });
}

/** The observation of the latest step that called `tool` (a thread's `.traj` holds its history). */
function observationOf(outcome: ScenarioOutcome, tool: string): string | undefined {
  return outcome.traj.trajectory.findLast((step) => step.action.includes(tool))?.observation;
}

await describeEachPair('plan mode, end to end', (kind) => {
  const pair = pairForSuite(kind, () => ({
    OPENAI_COMPATIBLE_BASE_URL: fake().baseUrl,
  }));

  /** A person's message on the thread (a Slack person by default), run to its end. */
  async function followUp(
    started: StartedScenario,
    text: string,
    from: { source: TriggerSource; author: string } = { source: 'slack', author: 'U-person' },
  ): Promise<ScenarioOutcome> {
    const runId = await sendFollowUp(pair(), started.threadId, text, from.source, from.author);
    return scenarioOutcome(pair(), started, runId, SLOW_RUN_TIMEOUT_MS);
  }

  it(
    "hides the mutating tools while planning, refuses a non-owner's approval, and edits again after the owner's",
    async () => {
      const before = fake().requests.length;
      fake().enqueue(
        call('enter_plan_mode', { user_request: 'make a plan first' }),
        call('write_file', { path: 'src/slugify.js', content: 'broken' }),
        call('save_plan', {
          title: 'Fix slugify',
          content: '# Plan\n1. Trim every dash.\n<script>x</script>',
        }),
        call('submit', {}),
      );
      const started = await startScenario(pair(), {
        prompt: 'Please make a plan first: how would you fix the trailing dash?',
        options: MODEL,
      });
      const first = await scenarioOutcome(pair(), started, started.runId, SLOW_RUN_TIMEOUT_MS);

      expect(first.run).toMatchObject({ exitStatus: 'submitted' });
      const planning = offeredSince(before);
      expect(planning).toHaveLength(4);
      expect(planning[0]).toEqual(expect.arrayContaining(MUTATING));
      for (const names of planning.slice(1)) {
        for (const mutating of MUTATING) expect(names).not.toContain(mutating);
      }
      expect(first.diff ?? '').not.toContain('broken');
      const plans = new ThreadPlanRepository(pair().database.db);
      expect(await plans.latest(started.threadId)).toMatchObject({
        revision: 1,
        title: 'Fix slugify',
        content: '# Plan\n1. Trim every dash.\n&lt;script>x&lt;/script>',
        status: 'awaiting_approval',
      });

      // Someone else's "approved" is refused: plan mode stays on.
      const refusing = fake().requests.length;
      fake().enqueue(
        call('approve_plan', { quote: 'approved, go ahead', feedback: 'go' }),
        call('submit', {}),
      );
      const second = await followUp(started, 'approved, go ahead');

      expect(second.run).toMatchObject({ exitStatus: 'submitted' });
      expect(observationOf(second, 'approve_plan')).toMatch(/FORBIDDEN.*Only the thread's owner/);
      for (const names of offeredSince(refusing)) {
        for (const mutating of MUTATING) expect(names).not.toContain(mutating);
      }
      expect((await plans.latest(started.threadId))?.status).toBe('awaiting_approval');

      // The owner approves in words in the source channel: the approving run gets its tools back.
      const approving = fake().requests.length;
      fake().enqueue(
        call('approve_plan', { quote: 'Approved, go ahead', feedback: 'looks right' }),
        call('submit', {}),
      );
      const third = await followUp(started, 'Approved, go ahead with the plan.', OWNER);

      expect(third.run).toMatchObject({ exitStatus: 'submitted' });
      expect(observationOf(third, 'approve_plan')).toMatch(
        /approved by synthetic:scenario; plan mode is off/,
      );
      const [beforeApproval, afterApproval] = offeredSince(approving);
      for (const mutating of MUTATING) expect(beforeApproval).not.toContain(mutating);
      expect(afterApproval).toEqual(expect.arrayContaining(MUTATING));
      expect(await plans.latest(started.threadId)).toMatchObject({
        status: 'approved',
        approvedBy: 'synthetic:scenario',
        feedback: 'looks right',
      });
      // The dashboard reads the same artifact: every revision, sanitised, with who approved it.
      const listed = await fetch(`${pair().host.url}/api/threads/${started.threadId}/plans`);
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual([
        expect.objectContaining({
          revision: 1,
          title: 'Fix slugify',
          content: expect.not.stringContaining('<script>') as unknown,
          status: 'approved',
          approvedBy: 'synthetic:scenario',
        }),
      ]);

      // The next run edits again, and its change lands on the thread's branch.
      const editing = fake().requests.length;
      fake().enqueue(
        call('write_file', {
          path: 'src/slugify.js',
          content: 'export const slugify = (s) => s.replace(/-+$/, "");\n',
        }),
        call('commit_and_open_pr', {
          commit_message: 'Trim trailing dashes',
          title: 'Trim trailing dashes',
          body: 'As planned.',
        }),
        call('submit', {}),
      );
      const fourth = await followUp(started, 'Now carry it out.', OWNER);

      expect(fourth.run).toMatchObject({ exitStatus: 'submitted' });
      const edits = offeredSince(editing);
      expect(edits).toHaveLength(3);
      for (const names of edits) expect(names).toEqual(expect.arrayContaining(MUTATING));
      expect(observationOf(fourth, 'write_file')).not.toMatch(/was not run/);
      expect(fourth.diff).toContain('s.replace(/-+$/, "")');
    },
    4 * SLOW_RUN_TIMEOUT_MS,
  );
});
