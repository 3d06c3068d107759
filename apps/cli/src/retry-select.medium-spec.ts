import { trajectoryFromEvents } from '@caravel/agent';
import { RunEventRepository } from '@caravel/db';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachPair, startPair, type PlatformPair } from './testing/platform-pairs.js';
import { runScenario, scriptedModel, shell, submit } from './testing/scenario-run.js';

// Retry-and-select end to end: two attempts in fresh sandboxes, a scripted reviewer scores them,
// the better one's change is the only one that reaches the thread's branch.
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
});

afterAll(async () => {
  await rm(scripts, { recursive: true, force: true });
});

await describeEachPair('retry-and-select', (kind) => {
  let pair: PlatformPair;

  beforeAll(async () => {
    pair = await startPair(kind, { RUN_REVIEW_SAMPLES: '1', SANDBOX_PROVIDER: 'bwrap' });
  }, 60_000);

  afterAll(async () => {
    await pair?.close();
  });

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
  });
});
