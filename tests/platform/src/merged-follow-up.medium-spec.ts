import { githubThreadId, threadBranch } from '@caravel/contracts';
import { RunEventRepository, RunRepository, type RunRow } from '@caravel/db';
import { seedRemote } from '@caravel/sandbox/testing';
import { FakeGitHub, githubAppEnv, githubAppKeys } from '@caravel/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postGithubWebhook } from './harness/github-webhook.js';
import { startPair, type PlatformPair } from './harness/platform-pairs.js';
import { scriptedModel, until } from './harness/scenario-run.js';

// A follow-up in a thread whose pull request was squash-merged, its branch deleted, as GitHub
// repositories commonly do: the next run starts over at the base (which holds the merged work)
// on the thread's branch and opens a new pull request with only the new change, instead of
// failing to push to the deleted branch or carrying the merged commits again.

const SECRET = 'merged-follow-up-secret';
const REPO = 'acme/widgets';
const APP_ID = '4343';
const ISSUE = 12;
const { privateKey, publicKey } = githubAppKeys();

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' }).trim();

/** A mention in a comment on issue #12, as GitHub sends it. */
function mention(commentId: number, body: string) {
  return {
    action: 'created',
    issue: { id: 7_000_012, number: ISSUE, title: 'Notes', body: 'We need notes.' },
    comment: {
      id: commentId,
      body,
      user: { login: 'octocat', type: 'User' },
      author_association: 'MEMBER',
    },
    repository: { name: 'widgets', private: true, owner: { login: 'acme', type: 'Organization' } },
    sender: { login: 'octocat', type: 'User' },
  };
}

describe('a follow-up after the thread pull request was merged [embedded bus + PGlite]', () => {
  let dir: string;
  let github: FakeGitHub;
  let pair: PlatformPair;
  let bare: string;

  /** The thread's next run to finish, besides the runs in `seen`. */
  async function nextFinishedRun(threadId: string, seen: Set<string>): Promise<RunRow> {
    const runs = new RunRepository(pair.database.db);
    return until(async () => {
      const run = (await runs.listByThread(threadId)).find((r) => r.finishedAt && !seen.has(r.id));
      return run ?? undefined;
    }, `a finished run on ${threadId}`);
  }

  /** Squash-merges pull request `number` into main as a person would, deleting its branch. */
  function squashMerge(number: number): void {
    const pull = github.state.pulls.get(REPO)?.find((p) => p.number === number);
    if (!pull) throw new Error(`no pull request #${number}`);
    const head = git(bare, 'rev-parse', pull.head);
    const squash = git(
      bare,
      '-c',
      'user.name=Person',
      '-c',
      'user.email=person@example.com',
      'commit-tree',
      `${head}^{tree}`,
      '-p',
      'main',
      '-m',
      `${pull.title} (#${number})`,
    );
    git(bare, 'update-ref', 'refs/heads/main', squash);
    git(bare, 'update-ref', '-d', `refs/heads/${pull.head}`);
    Object.assign(pull, { state: 'closed', mergedAt: new Date().toISOString(), headSha: head });
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-merged-follow-up-'));
    execFileSync('chmod', ['755', dir]);
    github = new FakeGitHub({ root: join(dir, 'remotes'), app: { id: APP_ID, publicKey } });
    github.addRepository(REPO);
    bare = await seedRemote(join(dir, 'remotes'), REPO, '# widgets\n');
    // Each run adds the next note: NOTE-1.md on a fresh main, NOTE-2.md once main holds NOTE-1.
    const model = await scriptedModel(dir, 'notes', [
      {
        tool_calls: [
          {
            name: 'execute',
            args: {
              command: 'n=$(ls NOTE-*.md 2>/dev/null | wc -l); echo note > NOTE-$((n+1)).md',
            },
          },
        ],
      },
      {
        tool_calls: [
          {
            name: 'commit_and_open_pr',
            args: { commit_message: 'Add a note', title: 'Add a note', body: 'Adds a note.' },
          },
        ],
      },
      { tool_calls: [{ name: 'submit', args: {} }] },
    ]);
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

  it('starts over at the merged base and opens a new pull request with only the new work', async () => {
    const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number: ISSUE });
    const branch = threadBranch(threadId);
    const deliver = async (commentId: number, body: string) => {
      const answer = await postGithubWebhook(pair.host.url, SECRET, 'issue_comment', {
        ...mention(commentId, body),
      });
      expect(await answer.json()).toMatchObject({ accepted: true, threadId });
    };
    const seen = new Set<string>();

    await deliver(8_100_001, '@caravel add a note');
    const first = await nextFinishedRun(threadId, seen);
    seen.add(first.id);
    expect(first).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    const opened = github.state.pulls.get(REPO)?.find((p) => p.head === branch);
    expect(opened).toMatchObject({ state: 'open', draft: true });
    expect(git(bare, 'show', `${branch}:NOTE-1.md`)).toBe('note');

    squashMerge(opened!.number);
    const mergedMain = git(bare, 'rev-parse', 'main');

    await deliver(8_100_002, '@caravel add another note');
    const second = await nextFinishedRun(threadId, seen);
    expect(second).toMatchObject({ status: 'completed', exitStatus: 'submitted' });

    // A new pull request from the same branch, which starts at the merged main: only NOTE-2.md.
    const pulls = github.state.pulls.get(REPO)?.filter((p) => p.head === branch) ?? [];
    expect(pulls.map((p) => p.state)).toEqual(['closed', 'open']);
    expect(pulls[1]!.number).not.toBe(opened!.number);
    expect(git(bare, 'rev-parse', `${branch}^`)).toBe(mergedMain);
    expect(git(bare, 'diff', '--name-only', `main...${branch}`)).toBe('NOTE-2.md');

    // The run was told why it started over.
    const events = await new RunEventRepository(pair.database.db).listByThread(threadId);
    const prompts = events
      .filter((e) => e.type === 'evt.run.started' && e.runId === second.id)
      .map((e) => (e.data as { prompt: string }).prompt);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain(`Your earlier pull request #${opened!.number}`);
    expect(prompts[0]).toContain('starts over');
  }, 300_000);
});
