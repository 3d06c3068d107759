import { githubThreadId, threadBranch } from '@caravel/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  hostGit as git,
  NOTES_REPO as REPO,
  startIssueNotesPlatform,
  type IssueNotesPlatform,
} from './harness/issue-notes.js';
import { until } from './harness/scenario-run.js';

// A run whose push the repository refuses (a server-side hook, branch protection, a full disk)
// while its agent goes on to submit: the run ends failed, `submitted (exit_unpublished)`, and the
// thread is told its changes are not in a pull request, instead of a success with no pull request
// behind it. Once the repository takes pushes again, the next mention publishes the kept work.

const ISSUE = 21;
const FAILURE = /wasn't able to finish this task: .*\(submitted \(exit_unpublished\)\)/;

describe('a run whose push is refused [embedded bus + PGlite]', () => {
  let platform: IssueNotesPlatform;
  const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number: ISSUE });
  const branch = threadBranch(threadId);
  const hook = () => join(platform.bare, 'hooks', 'pre-receive');
  const mentionRun = (commentId: number, seen: Set<string>) =>
    platform.mentionRun(ISSUE, commentId, seen);

  /** What was posted on the issue. */
  const issueComments = (): string[] =>
    (platform.github.state.issueComments.get(`${REPO}#${ISSUE}`) ?? []).map((c) => c.body);

  beforeAll(async () => {
    platform = await startIssueNotesPlatform('unpublished');
  }, 180_000);

  afterAll(async () => {
    await platform?.close();
  });

  it('ends failed and says so when its push is refused, then publishes the kept work once pushes go through', async () => {
    // The repository refuses every push, as a server-side hook does.
    await writeFile(hook(), '#!/bin/sh\necho "pushes are frozen for the release" >&2\nexit 1\n');
    await chmod(hook(), 0o755);
    const seen = new Set<string>();

    const refused = await mentionRun(9_100_001, seen);

    expect(refused).toMatchObject({ status: 'failed', exitStatus: 'submitted (exit_unpublished)' });
    expect(refused.summary).toMatch(/^The changes are not in a pull request: their last publish/);
    expect(platform.github.state.pulls.get(REPO)?.filter((p) => p.head === branch) ?? []).toEqual(
      [],
    );
    const told = await until(() => {
      const failures = issueComments().filter((body) => FAILURE.test(body));
      return Promise.resolve(failures.length > 0 ? failures : undefined);
    }, 'the failure comment');
    expect(told).toHaveLength(1);

    // Pushes go through again; the next mention publishes what the first run left in the sandbox.
    await rm(hook());
    const published = await mentionRun(9_100_002, seen);

    expect(published).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    const pulls = platform.github.state.pulls.get(REPO)?.filter((p) => p.head === branch) ?? [];
    expect(pulls).toEqual([expect.objectContaining({ state: 'open', draft: true })]);
    // Its body says whose request it answers, and where they asked.
    expect(pulls[0]!.body).toMatch(
      /\n---\nRequested by @octocat on #21 · Caravel run `[0-9a-f]{8}`$/,
    );
    expect(git(platform.bare, 'diff', '--name-only', `main...${branch}`).split('\n')).toEqual([
      'NOTE-1.md',
      'NOTE-2.md',
    ]);
    expect(issueComments().filter((body) => FAILURE.test(body))).toHaveLength(1);
  }, 300_000);
});
