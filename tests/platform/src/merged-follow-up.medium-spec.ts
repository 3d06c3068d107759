import { githubThreadId, threadBranch } from '@caravel/contracts';
import { RunEventRepository, type RunRow } from '@caravel/db';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  hostGit as git,
  NOTES_REPO as REPO,
  startIssueNotesPlatform,
  type IssueNotesPlatform,
} from './harness/issue-notes.js';

// Follow-ups in a thread whose pull request moved on without it. Squash-merged, its branch
// deleted (as GitHub repositories commonly do): the next run starts over at the base (which
// holds the merged work) on the thread's branch and opens a new pull request with only the new
// change, instead of failing to push to the deleted branch or carrying the merged commits again.
// Merged while the sandbox held uncommitted changes: the next run starts over at the base with
// those changes carried over, instead of keeping the sandbox and carrying the merged commits again.
// Pushed to by a person: the next run starts at their commit and pushes on top of it, instead of
// starting behind it and having its push refused.

/** The branch of issue 14's thread, whose runs leave a draft uncommitted after opening their PR. */
const DRAFTING = threadBranch(githubThreadId({ owner: 'acme', repo: 'widgets', number: 14 }));

describe('a follow-up after the thread pull request moved on [embedded bus + PGlite]', () => {
  let platform: IssueNotesPlatform;

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
    const run = await platform.mentionRun(issue, commentId, seen);
    expect(run).toMatchObject(ending);
    return { branch: threadBranch(run.threadId), run };
  }

  /** The prompt a run opened with. */
  async function promptOf(run: RunRow): Promise<string> {
    const events = await new RunEventRepository(platform.pair.database.db).listByThread(
      run.threadId,
    );
    const prompts = events
      .filter((e) => e.type === 'evt.run.started' && e.runId === run.id)
      .map((e) => (e.data as { prompt: string }).prompt);
    expect(prompts).toHaveLength(1);
    return prompts[0]!;
  }

  /** A commit of a person's in the remote: `tree` on top of `parent`. */
  const personCommit = (tree: string, parent: string, message: string): string =>
    git(
      platform.bare,
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
    const pull = platform.github.state.pulls.get(REPO)?.find((p) => p.number === number);
    if (!pull) throw new Error(`no pull request #${number}`);
    const head = git(platform.bare, 'rev-parse', pull.head);
    const squash = personCommit(`${head}^{tree}`, 'main', `${pull.title} (#${number})`);
    git(platform.bare, 'update-ref', 'refs/heads/main', squash);
    git(platform.bare, 'update-ref', '-d', `refs/heads/${pull.head}`);
    Object.assign(pull, { state: 'closed', mergedAt: new Date().toISOString(), headSha: head });
  }

  beforeAll(async () => {
    platform = await startIssueNotesPlatform('merged-follow-up', [
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
  }, 180_000);

  afterAll(async () => {
    await platform?.close();
  });

  it('starts over at the merged base and opens a new pull request with only the new work', async () => {
    const seen = new Set<string>();
    const { branch } = await mentionRun(12, 8_100_001, seen);
    const opened = platform.github.state.pulls.get(REPO)?.find((p) => p.head === branch);
    expect(opened).toMatchObject({ state: 'open', draft: true });
    expect(git(platform.bare, 'show', `${branch}:NOTE-1.md`)).toBe('note');

    squashMerge(opened!.number);
    const mergedMain = git(platform.bare, 'rev-parse', 'main');

    const { run: second } = await mentionRun(12, 8_100_002, seen);

    // A new pull request from the same branch, which starts at the merged main: only NOTE-2.md.
    const pulls = platform.github.state.pulls.get(REPO)?.filter((p) => p.head === branch) ?? [];
    expect(pulls.map((p) => p.state)).toEqual(['closed', 'open']);
    expect(pulls[1]!.number).not.toBe(opened!.number);
    expect(git(platform.bare, 'rev-parse', `${branch}^`)).toBe(mergedMain);
    expect(git(platform.bare, 'diff', '--name-only', `main...${branch}`)).toBe('NOTE-2.md');

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
    const opened = platform.github.state.pulls.get(REPO)?.find((p) => p.head === branch);
    expect(git(platform.bare, 'ls-tree', '--name-only', branch)).not.toContain('DRAFT.md');

    squashMerge(opened!.number);
    const mergedMain = git(platform.bare, 'rev-parse', 'main');

    const { run: second } = await mentionRun(14, 8_100_022, seen);

    // A new pull request whose branch sits on the merged main, with the draft carried over and the
    // new note: not NOTE-1.md again.
    const pulls = platform.github.state.pulls.get(REPO)?.filter((p) => p.head === branch) ?? [];
    expect(pulls.map((p) => p.state)).toEqual(['closed', 'open']);
    expect(git(platform.bare, 'rev-parse', `${branch}^`)).toBe(mergedMain);
    expect(git(platform.bare, 'diff', '--name-only', `main...${branch}`).split('\n')).toEqual([
      'DRAFT.md',
      expect.stringMatching(/^NOTE-\d\.md$/),
    ]);
    expect(git(platform.bare, 'show', `${branch}:DRAFT.md`)).toBe('draft');

    const prompt = await promptOf(second);
    expect(prompt).toContain(`Your earlier pull request #${opened!.number}`);
    expect(prompt).toContain('were carried over onto the base');
  }, 300_000);

  it("starts at a person's commit on its open pull request's branch and pushes on top of it", async () => {
    const seen = new Set<string>();
    const { branch } = await mentionRun(13, 8_100_011, seen);
    const pull = platform.github.state.pulls.get(REPO)?.find((p) => p.head === branch);
    expect(pull).toMatchObject({ state: 'open' });

    // A person pushes a commit of theirs to the pull request's branch.
    const agents = git(platform.bare, 'rev-parse', branch);
    const theirs = personCommit(`${agents}^{tree}`, agents, 'A fixup of mine');
    git(platform.bare, 'update-ref', `refs/heads/${branch}`, theirs);
    pull!.headSha = theirs;

    const { run: second } = await mentionRun(13, 8_100_012, seen);

    // The agent's new commit sits on the person's; still one pull request.
    expect(git(platform.bare, 'rev-parse', `${branch}^`)).toBe(theirs);
    expect(git(platform.bare, 'diff', '--name-only', `${theirs}..${branch}`)).toMatch(
      /^NOTE-\d\.md$/,
    );
    expect(platform.github.state.pulls.get(REPO)?.filter((p) => p.head === branch)).toHaveLength(1);
    expect(await promptOf(second)).toContain(`Someone pushed to \`${branch}\``);
  }, 300_000);
});
