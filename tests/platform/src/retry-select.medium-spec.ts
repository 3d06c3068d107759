import { trajectoryFromEvents } from '@caravel/agent';
import { attemptIds } from '@caravel/agent-runner';
import { TriggerReceivedV1, runIdForTrigger, type ThreadOptions } from '@caravel/contracts';
import { RunEventRepository } from '@caravel/db';
import { hostGit } from '@caravel/sandbox';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import {
  runScenario,
  scenarioOutcome,
  scriptedModel,
  shell,
  startScenario,
  submit,
  type StartedScenario,
} from './harness/scenario-run.js';

// Retry-and-select end to end: attempts in fresh sandboxes that start at the thread's HEAD, a
// scripted reviewer scores them, the better one's change is the only one that reaches the
// thread's branch, and no attempt's sandbox outlives the run.
const FIX = shell(
  `sed -i "s/.replace(\\/^-\\/, '');/.replace(\\/^-+|-+$\\/g, '');/" src/slugify.js`,
);
const publish = (message: string) => ({
  tool_calls: [
    { name: 'commit_and_open_pr', args: { commit_message: message, title: message, body: 'why' } },
  ],
});

interface SelectedData {
  winnerIndex: number | null;
  outcome: string;
  attempts: { index: number; runId: string; score: number | null; exitStatus: string }[];
}

let scripts: string;

beforeAll(async () => {
  scripts = await mkdtemp(join(tmpdir(), 'caravel-attempts-'));
  await chmod(scripts, 0o755); // the sandbox user must reach the sandboxes inside
});

afterAll(async () => {
  await rm(scripts, { recursive: true, force: true });
});

/** A later task on a thread that has run before, with the options it now asks for. */
async function sendOnThread(
  pair: PlatformPair,
  threadId: string,
  task: { prompt: string; options: ThreadOptions },
): Promise<string> {
  const trigger = TriggerReceivedV1.create(
    {
      threadId,
      source: 'synthetic',
      deliveryId: `again-${randomUUID()}`,
      author: { externalId: 'scenario' },
      text: task.prompt,
      trusted: true,
      options: task.options,
    },
    { source: 'scenario' },
  );
  await pair.bus.publish(TriggerReceivedV1, trigger);
  return runIdForTrigger(trigger.id);
}

await describeEachPair('retry-and-select', (kind) => {
  let pair: PlatformPair;
  let sandboxRoot: string;

  beforeAll(async () => {
    sandboxRoot = join(scripts, `sandboxes-${kind}`);
    pair = await startPair(kind, {
      RUN_REVIEW_SAMPLES: '1',
      SANDBOX_ROOT: sandboxRoot,
    });
  }, 60_000);

  afterAll(async () => {
    await pair?.close();
  });

  /** Every attempt of `runId` had its sandbox deleted: no binding, no directory, retired. */
  async function expectNoAttemptSandboxLeft(runId: string, attempts: number): Promise<void> {
    const threads = Array.from({ length: attempts }, (_, i) => attemptIds(runId, i).threadId);
    const db = pair.database.db;
    const bound = await db
      .selectFrom('sandboxes')
      .select('thread_id')
      .where('thread_id', 'in', threads)
      .execute();
    const retired = await db
      .selectFrom('retired_sandboxes')
      .select(['thread_id', 'external_id', 'kept'])
      .where('thread_id', 'in', threads)
      .execute();
    const onDisk = await Promise.all(
      retired.map(
        async (r) => (await stat(join(sandboxRoot, r.external_id)).catch(() => null)) !== null,
      ),
    );
    expect({ bound, retired: retired.map((r) => r.kept), onDisk }).toEqual({
      bound: [],
      retired: threads.map(() => false),
      onDisk: threads.map(() => false),
    });
  }

  it('runs each attempt in its own sandbox and keeps only the scored winner', async () => {
    const wrong = await scriptedModel(scripts, `wrong-${kind}`, [
      shell('echo guess > wrong.txt'),
      publish('guess'),
      submit(),
    ]);
    const right = await scriptedModel(scripts, `right-${kind}`, [
      FIX,
      shell('npm test'),
      publish('fix(slugify): drop trailing dashes'),
      submit(),
    ]);
    const reviewer = await scriptedModel(scripts, `review-${kind}`, [
      { content: 'Adds an unrelated file; the bug stays.\n2' },
      { content: 'Fixes the trailing dash and the tests pass.\n9' },
    ]);

    const out = await runScenario(pair, {
      prompt: 'slugify leaves a trailing dash',
      options: { attempts: 2, attemptModels: [wrong, right], reviewModel: reviewer },
    });

    expect(out.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    // Only the winner's change reached the thread's branch.
    expect(out.diff).toContain('-+|-+$');
    expect(out.diff).not.toContain('wrong.txt');
    const events = await new RunEventRepository(pair.database.db).listByThread(out.threadId, {});
    const selected = events.find((e) => e.type === 'evt.run.attempts_selected');
    const data = selected?.data as SelectedData | undefined;
    expect(data).toMatchObject({ outcome: 'scored', winnerIndex: 1 });
    expect(data?.attempts.map((a) => a.score)).toEqual([2, 9]);
    // Every attempt is recorded as a run of its own, with its own trajectory.
    for (const attempt of data?.attempts ?? []) {
      const traj = trajectoryFromEvents(events.filter((e) => e.runId === attempt.runId));
      expect(traj.info.exit_status).toBe('submitted');
      expect(traj.trajectory.length).toBeGreaterThanOrEqual(3);
    }
    const wrongTraj = trajectoryFromEvents(
      events.filter((e) => e.runId === data?.attempts[0]?.runId),
    );
    expect(wrongTraj.info.submission).toContain('wrong.txt');
    await expectNoAttemptSandboxLeft(out.run.id, 2);
  }, 240_000);

  it("starts the attempts of a later run at the thread's HEAD, so the winner builds on its commits", async () => {
    // The thread's first run commits NOTES.md and pushes its branch.
    const earlier = await scriptedModel(scripts, `earlier-${kind}`, [
      shell('echo "step one" > NOTES.md'),
      publish('docs: start the notes'),
      submit(),
    ]);
    const started: StartedScenario = await startScenario(pair, {
      prompt: 'start the notes',
      options: { model: earlier },
    });
    const first = await scenarioOutcome(pair, started);
    expect(first.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });

    // Then a retry-and-select run on the same thread. Appending to NOTES.md only works from the
    // thread's HEAD: from the base branch the winner's patch would create the file, and that
    // patch could not apply to the thread.
    const wrong = await scriptedModel(scripts, `later-wrong-${kind}`, [
      shell('echo guess > wrong.txt'),
      submit(),
    ]);
    const right = await scriptedModel(scripts, `later-right-${kind}`, [
      shell('echo "step two" >> NOTES.md'),
      publish('docs: add step two'),
      submit(),
    ]);
    const reviewer = await scriptedModel(scripts, `later-review-${kind}`, [
      { content: 'Unrelated.\n1' },
      { content: 'Adds the second step.\n8' },
    ]);
    const runId = await sendOnThread(pair, started.threadId, {
      prompt: 'add step two to the notes',
      options: { attempts: 2, attemptModels: [wrong, right], reviewModel: reviewer },
    });
    const out = await scenarioOutcome(pair, started, runId);

    expect(out.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    // The winner's patch is its own change only: it started where the thread was.
    expect(out.traj.info.submission).toContain('+step two');
    expect(out.traj.info.submission).not.toContain('+step one');
    // The thread's branch holds both commits, in order, and the notes as the winner left them.
    const branch = `caravel/${started.threadId.slice(0, 8)}`;
    const repo = started.repository.path;
    const subjects = (await hostGit(repo, ['log', '--format=%s', branch])).split('\n');
    expect(subjects.slice(0, 2)).toEqual(['docs: add step two', 'docs: start the notes']);
    expect(await hostGit(repo, ['show', `${branch}:NOTES.md`])).toBe('step one\nstep two');
    await expectNoAttemptSandboxLeft(runId, 2);
  }, 360_000);
});
