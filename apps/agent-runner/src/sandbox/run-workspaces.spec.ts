import { StartRunV1, threadBranch } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type { BranchPullRequest, CommitComparison, GitHubCodeHost } from '@caravel/integrations';
import type { ToolSandboxAdapter } from '@caravel/sandbox';
import { strictMock } from '@caravel/testing/doubles';
import type { RunIntegrationsService } from '../integrations/run-integrations.service.js';
import { MERGED_HEAD, MERGED_PULL } from '../testing/branch-pulls.js';
import { RunWorkspaces } from './run-workspaces.js';
import type { ThreadSandboxService, ThreadWorkspace } from './thread-sandbox.service.js';

const repository = { owner: 'acme', name: 'widgets' };
const run = { ...StartRunV1.fixture().data, repository };
const ownBranch = threadBranch(run.threadId);
const merged = MERGED_PULL;

/** A workspace as the broker hands it out: `outcome`, its HEAD, and what its diff holds. */
function workspaceOf(
  outcome: ThreadWorkspace['outcome'],
  head: string,
  diff = '',
): ThreadWorkspace {
  return strictMock<ThreadWorkspace>(
    {
      outcome,
      baseCommit: head,
      branch: ownBranch,
      tools: strictMock<ToolSandboxAdapter>({ diff: () => Promise.resolve(diff) }, 'tools'),
    },
    `workspace ${outcome}`,
  );
}

/**
 * The service over strict doubles: the broker hands out `handed` in turn, and the branch's pull
 * request is `pull` (a function, to throw). `log` says what was asked of the broker, in order.
 */
function workspacesWith(
  handed: ThreadWorkspace[],
  pull: () => Promise<BranchPullRequest | null>,
  comparison: () => Promise<CommitComparison> = () => Promise.reject(new Error('no compare')),
) {
  const log: string[] = [];
  const options: Parameters<ThreadSandboxService['forRun']>[2][] = [];
  const sandboxes = strictMock<ThreadSandboxService>(
    {
      forRun: (_threadId, _repository, asked) => {
        options.push(asked);
        log.push('acquired');
        const next = handed.shift();
        return next ? Promise.resolve(next) : Promise.reject(new Error('no workspace left'));
      },
      release: () => Promise.resolve(void log.push('released')),
      discard: () => Promise.resolve(log.push('discarded') > 0),
    },
    'sandboxes',
  );
  const looked: string[] = [];
  const compared: string[] = [];
  const host = strictMock<GitHubCodeHost>(
    {
      branchPullRequest: (branch: string) => (looked.push(branch), pull()),
      compare: (base: string, head: string) => {
        compared.push(`${base.slice(0, 1)}...${head.slice(0, 1)}`);
        return comparison();
      },
    },
    'host',
  );
  const integrations = strictMock<RunIntegrationsService>(
    { pullRequestHost: () => host },
    'integrations',
  );
  return { workspaces: new RunWorkspaces(sandboxes, integrations), log, options, looked, compared };
}

const onOwnBranch = { branch: ownBranch, repository };
const noOutput = () => undefined;

describe('RunWorkspaces', () => {
  it("continues the thread's branch as before while its pull request is open", async () => {
    const open = { ...merged, state: 'open' as const };
    const kept = workspaceOf('reused', MERGED_HEAD);
    const { workspaces, log, options, looked } = workspacesWith([kept], () =>
      Promise.resolve(open),
    );

    const workspace = await workspaces.acquire(run, onOwnBranch, noOutput);

    expect(looked).toEqual([ownBranch]);
    expect(log).toEqual(['acquired']);
    expect(options[0]).not.toHaveProperty('atBase');
    // The broker's workspace as it came, with no note.
    expect(workspace).toBe(kept);
  });

  it('starts a new sandbox at the base once the pull request was merged, and says so', async () => {
    const { workspaces, log, options } = workspacesWith(
      [workspaceOf('created', 'b'.repeat(40))],
      () => Promise.resolve(merged),
    );

    const workspace = await workspaces.acquire(run, onOwnBranch, noOutput);

    expect(log).toEqual(['acquired']);
    expect(options[0]).toMatchObject({ branch: ownBranch, atBase: true });
    expect(workspace.startNote).toContain(
      `Your earlier pull request #4 (${merged.url}) from \`${ownBranch}\` was merged`,
    );
    expect(workspace.startNote).toContain('starts over');
  });

  it('replaces a kept sandbox that holds only the merged head with a new one at the base', async () => {
    const fresh = workspaceOf('created', 'b'.repeat(40));
    const { workspaces, log, options } = workspacesWith(
      [workspaceOf('reused', MERGED_HEAD), fresh],
      () => Promise.resolve(merged),
    );

    const workspace = await workspaces.acquire(run, onOwnBranch, noOutput);

    expect(log).toEqual(['acquired', 'released', 'discarded', 'acquired']);
    expect(options[1]).toMatchObject({ branch: ownBranch, atBase: true });
    expect(workspace.baseCommit).toBe('b'.repeat(40));
    expect(workspace.startNote).toContain('starts over');
  });

  it.each([
    ['a commit after the merged head', 'c'.repeat(40), ''],
    ['uncommitted changes', MERGED_HEAD, 'diff --git a/x b/x\n+more'],
  ])('keeps a sandbox holding %s, and tells the run', async (_what, head, diff) => {
    const { workspaces, log } = workspacesWith([workspaceOf('reused', head, diff)], () =>
      Promise.resolve(merged),
    );

    const workspace = await workspaces.acquire(run, onOwnBranch, noOutput);

    expect(log).toEqual(['acquired']);
    expect(workspace.startNote).toContain("would carry #4's commits again");
  });

  describe('a kept sandbox behind its branch (someone pushed since)', () => {
    const BEHIND = 'a'.repeat(40);
    const open = { ...merged, state: 'open' as const };

    it("is set up again at the open pull request's head when it holds nothing of its own", async () => {
      const fresh = workspaceOf('created', MERGED_HEAD);
      const { workspaces, log, compared } = workspacesWith(
        [workspaceOf('reused', BEHIND), fresh],
        () => Promise.resolve(open),
        () => Promise.resolve('ahead'),
      );

      const workspace = await workspaces.acquire(run, onOwnBranch, noOutput);

      expect(compared).toEqual(['a...f']);
      expect(log).toEqual(['acquired', 'released', 'discarded', 'acquired']);
      expect(workspace.baseCommit).toBe(MERGED_HEAD);
      expect(workspace.startNote).toContain(`Someone pushed to \`${ownBranch}\``);
    });

    it("uses a pull request's own head, read with the request", async () => {
      const { workspaces, log, looked, compared } = workspacesWith(
        [workspaceOf('reused', BEHIND), workspaceOf('created', MERGED_HEAD)],
        () => Promise.resolve(null),
        () => Promise.resolve('ahead'),
      );

      await workspaces.acquire(
        run,
        { branch: 'fix-parser', repository, head: MERGED_HEAD },
        noOutput,
      );

      expect(looked).toEqual([]);
      expect(compared).toEqual(['a...f']);
      expect(log).toEqual(['acquired', 'released', 'discarded', 'acquired']);
    });

    it.each([
      ['commits of its own (diverged)', 'diverged' as const, ''],
      ['uncommitted changes', 'ahead' as const, 'diff --git a/x b/x\n+mine'],
    ])('is kept when it holds %s', async (_what, how, diff) => {
      const kept = workspaceOf('reused', BEHIND, diff);
      const { workspaces, log } = workspacesWith(
        [kept],
        () => Promise.resolve(open),
        () => Promise.resolve(how),
      );

      expect(await workspaces.acquire(run, onOwnBranch, noOutput)).toBe(kept);
      expect(log).toEqual(['acquired']);
    });

    it('is kept when GitHub cannot say (a commit it does not have)', async () => {
      const kept = workspaceOf('reused', BEHIND);
      const { workspaces, log } = workspacesWith(
        [kept],
        () => Promise.resolve(open),
        () => Promise.reject(new AppError('NOT_FOUND', 'No commit found')),
      );

      expect(await workspaces.acquire(run, onOwnBranch, noOutput)).toBe(kept);
      expect(log).toEqual(['acquired']);
    });
  });

  it('works as before when the pull request cannot be read', async () => {
    const kept = workspaceOf('reused', MERGED_HEAD);
    const { workspaces, log, options } = workspacesWith([kept], () =>
      Promise.reject(new AppError('DEPENDENCY_UNAVAILABLE', 'GitHub is down')),
    );

    const workspace = await workspaces.acquire(run, onOwnBranch, noOutput);

    expect(log).toEqual(['acquired']);
    expect(options[0]).not.toHaveProperty('atBase');
    // The broker's workspace as it came, with no note.
    expect(workspace).toBe(kept);
  });

  it("reads nothing for a pull request's own branch or a fork's head", async () => {
    const { workspaces, looked, options } = workspacesWith(
      [workspaceOf('reused', 'a'.repeat(40)), workspaceOf('created', 'a'.repeat(40))],
      () => Promise.resolve(merged),
    );

    await workspaces.acquire(run, { branch: 'fix-parser', repository }, noOutput);
    const fork = { ...onOwnBranch, startRef: 'refs/pull/8/head' };
    await workspaces.acquire(run, fork, noOutput);

    expect(looked).toEqual([]);
    expect(options[1]).toMatchObject({ startRef: 'refs/pull/8/head' });
  });
});
