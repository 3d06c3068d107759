import { githubThreadId, threadBranch } from '@caravel/contracts';
import { RunRepository, type RunRow } from '@caravel/db';
import { seedRemote } from '@caravel/sandbox/testing';
import { FakeGitHub, githubAppEnv, githubAppKeys } from '@caravel/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postGithubWebhook } from './harness/github-webhook.js';
import { startPair, type PlatformPair } from './harness/platform-pairs.js';
import { noteModel, issueMention } from './harness/issue-notes.js';
import { until } from './harness/scenario-run.js';

// A run whose push the repository refuses (a server-side hook, branch protection, a full disk)
// while its agent goes on to submit: the run ends failed, `submitted (exit_unpublished)`, and the
// thread is told its changes are not in a pull request, instead of a success with no pull request
// behind it. Once the repository takes pushes again, the next mention publishes the kept work.

const SECRET = 'unpublished-work-secret';
const REPO = 'acme/widgets';
const APP_ID = '4545';
const ISSUE = 21;
const FAILURE = /wasn't able to finish this task: .*\(submitted \(exit_unpublished\)\)/;
const { privateKey, publicKey } = githubAppKeys();

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' }).trim();

describe('a run whose push is refused [embedded bus + PGlite]', () => {
  let dir: string;
  let github: FakeGitHub;
  let pair: PlatformPair;
  let bare: string;
  const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number: ISSUE });
  const branch = threadBranch(threadId);
  const hook = () => join(bare, 'hooks', 'pre-receive');

  /** Mentions Caravel and waits for the run it starts (one not in `seen`, then added) to end. */
  async function mentionRun(commentId: number, seen: Set<string>): Promise<RunRow> {
    const answer = await postGithubWebhook(
      pair.host.url,
      SECRET,
      'issue_comment',
      issueMention(ISSUE, commentId),
    );
    expect(await answer.json()).toMatchObject({ accepted: true, threadId });
    const runs = new RunRepository(pair.database.db);
    const run = await until(async () => {
      const done = (await runs.listByThread(threadId)).find((r) => r.finishedAt && !seen.has(r.id));
      return done ?? undefined;
    }, `a finished run on ${threadId}`);
    seen.add(run.id);
    return run;
  }

  /** What was posted on the issue. */
  const issueComments = (): string[] =>
    (github.state.issueComments.get(`${REPO}#${ISSUE}`) ?? []).map((c) => c.body);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-unpublished-'));
    execFileSync('chmod', ['755', dir]);
    github = new FakeGitHub({ root: join(dir, 'remotes'), app: { id: APP_ID, publicKey } });
    github.addRepository(REPO);
    bare = await seedRemote(join(dir, 'remotes'), REPO, '# widgets\n');
    const model = await noteModel(dir);
    const origin = await github.start();
    pair = await startPair('embedded', {
      GITHUB_WEBHOOK_SECRET: SECRET,
      ...githubAppEnv(APP_ID, privateKey, origin),
      TRUSTED_AUTHORS: 'github:octocat',
      CARAVEL_MODEL: model,
    });
  }, 180_000);

  afterAll(async () => {
    await pair?.close();
    await github?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('ends failed and says so when its push is refused, then publishes the kept work once pushes go through', async () => {
    // The repository refuses every push, as a server-side hook does.
    await writeFile(hook(), '#!/bin/sh\necho "pushes are frozen for the release" >&2\nexit 1\n');
    await chmod(hook(), 0o755);
    const seen = new Set<string>();

    const refused = await mentionRun(9_100_001, seen);

    expect(refused).toMatchObject({ status: 'failed', exitStatus: 'submitted (exit_unpublished)' });
    expect(refused.summary).toMatch(/^The changes are not in a pull request: their last publish/);
    expect(github.state.pulls.get(REPO)?.filter((p) => p.head === branch) ?? []).toEqual([]);
    const told = await until(() => {
      const failures = issueComments().filter((body) => FAILURE.test(body));
      return Promise.resolve(failures.length > 0 ? failures : undefined);
    }, 'the failure comment');
    expect(told).toHaveLength(1);

    // Pushes go through again; the next mention publishes what the first run left in the sandbox.
    await rm(hook());
    const published = await mentionRun(9_100_002, seen);

    expect(published).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    const pulls = github.state.pulls.get(REPO)?.filter((p) => p.head === branch) ?? [];
    expect(pulls).toEqual([expect.objectContaining({ state: 'open', draft: true })]);
    // Its body says whose request it answers, and where they asked.
    expect(pulls[0]!.body).toMatch(
      /\n---\nRequested by @octocat on #21 · Caravel run `[0-9a-f]{8}`$/,
    );
    expect(git(bare, 'diff', '--name-only', `main...${branch}`).split('\n')).toEqual([
      'NOTE-1.md',
      'NOTE-2.md',
    ]);
    expect(issueComments().filter((body) => FAILURE.test(body))).toHaveLength(1);
  }, 300_000);
});
