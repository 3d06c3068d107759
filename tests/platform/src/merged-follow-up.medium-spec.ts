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
import { issueMention, noteModel } from './harness/issue-notes.js';
import { until } from './harness/scenario-run.js';

// Follow-ups in a thread whose pull request moved on without it. Squash-merged, its branch
// deleted (as GitHub repositories commonly do): the next run starts over at the base (which
// holds the merged work) on the thread's branch and opens a new pull request with only the new
// change, instead of failing to push to the deleted branch or carrying the merged commits again.
// Merged while the sandbox held uncommitted changes: the next run starts over at the base with
// those changes carried over, instead of keeping the sandbox and carrying the merged commits again.
// Pushed to by a person: the next run starts at their commit and pushes on top of it, instead of
// starting behind it and having its push refused.

const SECRET = 'merged-follow-up-secret';
const REPO = 'acme/widgets';
const APP_ID = '4343';
const { privateKey, publicKey } = githubAppKeys();
/** The branch of issue 14's thread, whose runs leave a draft uncommitted after opening their PR. */
const DRAFTING = threadBranch(githubThreadId({ owner: 'acme', repo: 'widgets', number: 14 }));

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' }).trim();

describe('a follow-up after the thread pull request moved on [embedded bus + PGlite]', () => {
  let dir: string;
  let github: FakeGitHub;
  let pair: PlatformPair;
  let bare: string;

  /**
   * Mentions Caravel on issue `issue` and waits for the run it starts in the issue's thread (one
   * not in `seen`, then added to it) to end as `ending` says (by default completed, submitted).
   */
  async function mentionRun(
    issue: number,
    commentId: number,
    seen: Set<string>,
    ending: Partial<RunRow> = { status: 'completed', exitStatus: 'submitted' },
  ) {
    const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number: issue });
    const answer = await postGithubWebhook(
      pair.host.url,
      SECRET,
      'issue_comment',
      issueMention(issue, commentId),
    );
    expect(await answer.json()).toMatchObject({ accepted: true, threadId });
    const runs = new RunRepository(pair.database.db);
    const run = await until(async () => {
      const done = (await runs.listByThread(threadId)).find((r) => r.finishedAt && !seen.has(r.id));
      return done ?? undefined;
    }, `a finished run on ${threadId}`);
    seen.add(run.id);
    expect(run).toMatchObject(ending);
    return { threadId, branch: threadBranch(threadId), run };
  }

  /** The prompt a run opened with. */
  async function promptOf(run: RunRow): Promise<string> {
    const events = await new RunEventRepository(pair.database.db).listByThread(run.threadId);
    const prompts = events
      .filter((e) => e.type === 'evt.run.started' && e.runId === run.id)
      .map((e) => (e.data as { prompt: string }).prompt);
    expect(prompts).toHaveLength(1);
    return prompts[0]!;
  }

  /** A commit of a person's in the remote: `tree` on top of `parent`. */
  const personCommit = (tree: string, parent: string, message: string): string =>
    git(
      bare,
      '-c',
      'user.name=Person',
      '-c',
      'user.email=person@example.com',
      'commit-tree',
      tree,
      '-p',
      parent,
      '-m',
      message,
    );

  /** Squash-merges pull request `number` into main as a person would, deleting its branch. */
  function squashMerge(number: number): void {
    const pull = github.state.pulls.get(REPO)?.find((p) => p.number === number);
    if (!pull) throw new Error(`no pull request #${number}`);
    const head = git(bare, 'rev-parse', pull.head);
    const squash = personCommit(`${head}^{tree}`, 'main', `${pull.title} (#${number})`);
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
    const model = await noteModel(dir, [
      // On issue 14's thread only, the run also leaves a draft uncommitted after publishing.
      {
        tool_calls: [
          {
            name: 'execute',
            args: {
              command: `if [ "$(git branch --show-current)" = '${DRAFTING}' ]; then echo draft > DRAFT.md; fi`,
            },
          },
        ],
      },
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
    const seen = new Set<string>();
    const { branch } = await mentionRun(12, 8_100_001, seen);
    const opened = github.state.pulls.get(REPO)?.find((p) => p.head === branch);
    expect(opened).toMatchObject({ state: 'open', draft: true });
    expect(git(bare, 'show', `${branch}:NOTE-1.md`)).toBe('note');

    squashMerge(opened!.number);
    const mergedMain = git(bare, 'rev-parse', 'main');

    const { run: second } = await mentionRun(12, 8_100_002, seen);

    // A new pull request from the same branch, which starts at the merged main: only NOTE-2.md.
    const pulls = github.state.pulls.get(REPO)?.filter((p) => p.head === branch) ?? [];
    expect(pulls.map((p) => p.state)).toEqual(['closed', 'open']);
    expect(pulls[1]!.number).not.toBe(opened!.number);
    expect(git(bare, 'rev-parse', `${branch}^`)).toBe(mergedMain);
    expect(git(bare, 'diff', '--name-only', `main...${branch}`)).toBe('NOTE-2.md');

    // The run was told why it started over.
    const prompt = await promptOf(second);
    expect(prompt).toContain(`Your earlier pull request #${opened!.number}`);
    expect(prompt).toContain('starts over');
  }, 300_000);

  it('carries uncommitted changes over onto the merged base, not the merged commits', async () => {
    const seen = new Set<string>();
    // The first run opens its pull request, then leaves DRAFT.md uncommitted in its sandbox (how
    // a run with unpublished changes ends is not this test's concern).
    const { branch } = await mentionRun(14, 8_100_021, seen, {});
    expect(branch).toBe(DRAFTING);
    const opened = github.state.pulls.get(REPO)?.find((p) => p.head === branch);
    expect(git(bare, 'ls-tree', '--name-only', branch)).not.toContain('DRAFT.md');

    squashMerge(opened!.number);
    const mergedMain = git(bare, 'rev-parse', 'main');

    const { run: second } = await mentionRun(14, 8_100_022, seen);

    // A new pull request whose branch sits on the merged main, with the draft carried over and the
    // new note: not NOTE-1.md again.
    const pulls = github.state.pulls.get(REPO)?.filter((p) => p.head === branch) ?? [];
    expect(pulls.map((p) => p.state)).toEqual(['closed', 'open']);
    expect(git(bare, 'rev-parse', `${branch}^`)).toBe(mergedMain);
    expect(git(bare, 'diff', '--name-only', `main...${branch}`).split('\n')).toEqual([
      'DRAFT.md',
      expect.stringMatching(/^NOTE-\d\.md$/),
    ]);
    expect(git(bare, 'show', `${branch}:DRAFT.md`)).toBe('draft');

    const prompt = await promptOf(second);
    expect(prompt).toContain(`Your earlier pull request #${opened!.number}`);
    expect(prompt).toContain('were carried over onto the base');
  }, 300_000);

  it("starts at a person's commit on its open pull request's branch and pushes on top of it", async () => {
    const seen = new Set<string>();
    const { branch } = await mentionRun(13, 8_100_011, seen);
    const pull = github.state.pulls.get(REPO)?.find((p) => p.head === branch);
    expect(pull).toMatchObject({ state: 'open' });

    // A person pushes a commit of theirs to the pull request's branch.
    const agents = git(bare, 'rev-parse', branch);
    const theirs = personCommit(`${agents}^{tree}`, agents, 'A fixup of mine');
    git(bare, 'update-ref', `refs/heads/${branch}`, theirs);
    pull!.headSha = theirs;

    const { run: second } = await mentionRun(13, 8_100_012, seen);

    // The agent's new commit sits on the person's; still one pull request.
    expect(git(bare, 'rev-parse', `${branch}^`)).toBe(theirs);
    expect(git(bare, 'diff', '--name-only', `${theirs}..${branch}`)).toMatch(/^NOTE-\d\.md$/);
    expect(github.state.pulls.get(REPO)?.filter((p) => p.head === branch)).toHaveLength(1);
    expect(await promptOf(second)).toContain(`Someone pushed to \`${branch}\``);
  }, 300_000);
});
