import { StartRunV1, threadBranch } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type { BranchPullRequest, CommitComparison, GitHubCodeHost } from '@caravel/integrations';
import type { Sandbox, ToolSandboxAdapter } from '@caravel/sandbox';
import { strictMock } from '@caravel/testing/doubles';
import type { RunIntegrationsService } from '../integrations/run-integrations.service.js';
import { MERGED_HEAD, MERGED_PULL } from '../testing/branch-pulls.js';
import { RunWorkspaces } from './run-workspaces.js';
import type { ThreadSandboxService, ThreadWorkspace } from './thread-sandbox.service.js';

const repository = { owner: 'acme', name: 'widgets' };
const run = { ...StartRunV1.fixture().data, repository };
const ownBranch = threadBranch(run.threadId);
const merged = MERGED_PULL;

/** What `git apply` answers in a sandbox: 0, or 1 with its output. */
type Applies = { exitCode: 0 } | { exitCode: 1; output: string };

/**
 * A workspace as the broker hands it out: `outcome`, its HEAD, and what its diff holds; `applies`
 * says how `git apply` goes in it (its commands are told in `commands`).
 */
function workspaceOf(
  outcome: ThreadWorkspace['outcome'],
  head: string,
  diff = '',
  applies?: Applies,
  commands: string[] = [],
): ThreadWorkspace {
  const sandbox = strictMock<Sandbox>(
    {
      writeFile: (path: string, content: string) =>
        Promise.resolve(void commands.push(`${head.slice(0, 1)}: write ${path} ${content}`)),
      exec: (command: string) => {
        commands.push(`${head.slice(0, 1)}: ${command.split(' ').slice(0, 2).join(' ')}`);
        if (!applies) return Promise.reject(new Error(`unexpected command: ${command}`));
        const output = applies.exitCode === 0 ? '' : applies.output;
        return Promise.resolve({
          exitCode: applies.exitCode,
          output,
          timedOut: false,
          truncated: false,
          outputBytes: output.length,
          elapsedMs: 1,
        });
      },
    },
    `sandbox ${outcome}`,
  );
  return strictMock<ThreadWorkspace>(
    {
      outcome,
      baseCommit: head,
      branch: ownBranch,
      sandbox,
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
  /** Another thread's sandbox than the run's is the carry-over's trial. */
  const of = (threadId: string) => (threadId === run.threadId ? '' : ' trial');
  const options: Parameters<ThreadSandboxService['forRun']>[2][] = [];
  const sandboxes = strictMock<ThreadSandboxService>(
    {
      forRun: (threadId, _repository, asked) => {
        options.push(asked);
        log.push(`acquired${of(threadId)}`);
        const next = handed.shift();
        return next ? Promise.resolve(next) : Promise.reject(new Error('no workspace left'));
      },
      release: (threadId) => Promise.resolve(void log.push(`released${of(threadId)}`)),
      discard: (threadId) => Promise.resolve(log.push(`discarded${of(threadId)}`) > 0),
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
    ['a commit after the merged head', ''],
    ['a commit after the merged head and uncommitted changes', 'diff --git a/x b/x\n+more'],
  ])('keeps a sandbox holding %s, and tells the run', async (_what, diff) => {
    const { workspaces, log } = workspacesWith([workspaceOf('reused', 'c'.repeat(40), diff)], () =>
      Promise.resolve(merged),
    );

    const workspace = await workspaces.acquire(run, onOwnBranch, noOutput);

    expect(log).toEqual(['acquired']);
    expect(workspace.startNote).toContain("would carry #4's commits again");
  });

  describe('a kept sandbox at the merged head with uncommitted changes', () => {
    const BASE = 'b'.repeat(40);
    const patch = 'diff --git a/NOTE.md b/NOTE.md\n+more';

    it('carries them over onto a new sandbox at the base, tried there first, and says so', async () => {
      const commands: string[] = [];
      const kept = workspaceOf('reused', MERGED_HEAD, patch, undefined, commands);
      const trial = workspaceOf('created', BASE, '', { exitCode: 0 }, commands);
      const fresh = workspaceOf('created', BASE, '', { exitCode: 0 }, commands);
      const { workspaces, log, options } = workspacesWith([kept, trial, fresh], () =>
        Promise.resolve(merged),
      );

      const workspace = await workspaces.acquire(run, onOwnBranch, noOutput);

      expect(log).toEqual([
        'acquired',
        'acquired trial',
        'released trial',
        'released',
        'discarded',
        'acquired',
        'discarded trial',
      ]);
      // The trial at the base, the thread's new sandbox from the trial's HEAD.
      expect(options[1]).toEqual({ branch: ownBranch, atBase: true });
      expect(options[2]).toMatchObject({ branch: ownBranch, startFrom: expect.any(String) });
      expect(options[2]).not.toHaveProperty('atBase');
      // The kept sandbox's diff, applied as a retry-and-select winner's patch is, twice.
      const apply = [`b: write .caravel-apply.patch ${patch}`, 'b: git apply'];
      expect(commands).toEqual([...apply, ...apply]);
      expect(workspace.sandbox).toBe(fresh.sandbox);
      expect(workspace.baseCommit).toBe(BASE);
      expect(workspace.startNote).toContain(`Your earlier pull request #4 (${merged.url})`);
      expect(workspace.startNote).toContain('starts over');
      expect(workspace.startNote).toContain('were carried over onto the base');
    });

    it('keeps the sandbox when they do not apply on the base, and names the files', async () => {
      const output =
        'error: patch failed: NOTE.md:1\nerror: NOTE.md: patch does not apply\n' +
        'error: gone.txt: No such file or directory';
      const kept = workspaceOf('reused', MERGED_HEAD, patch);
      const trial = workspaceOf('created', BASE, '', { exitCode: 1, output });
      const { workspaces, log } = workspacesWith([kept, trial], () => Promise.resolve(merged));

      const workspace = await workspaces.acquire(run, onOwnBranch, noOutput);

      // Nothing of the thread's sandbox is released or deleted: only the trial goes.
      expect(log).toEqual(['acquired', 'acquired trial', 'released trial', 'discarded trial']);
      expect(workspace.sandbox).toBe(kept.sandbox);
      expect(workspace.startNote).toContain("would carry #4's commits again");
      expect(workspace.startNote).toContain(
        'not carried over onto the base branch because they do not apply there: ' +
          '`NOTE.md` (patch does not apply), `gone.txt` (No such file or directory).',
      );
    });

    it('sets a trial left by an earlier try of the run up again before trying', async () => {
      const commands: string[] = [];
      const kept = workspaceOf('reused', MERGED_HEAD, patch);
      const stale = workspaceOf('reconnected', BASE);
      const trial = workspaceOf('created', BASE, '', { exitCode: 0 }, commands);
      const fresh = workspaceOf('created', BASE, '', { exitCode: 0 }, commands);
      const { workspaces, log } = workspacesWith([kept, stale, trial, fresh], () =>
        Promise.resolve(merged),
      );

      const workspace = await workspaces.acquire(run, onOwnBranch, noOutput);

      expect(log.slice(0, 5)).toEqual([
        'acquired',
        'acquired trial',
        'released trial',
        'discarded trial',
        'acquired trial',
      ]);
      expect(commands).toHaveLength(4);
      expect(workspace.sandbox).toBe(fresh.sandbox);
    });

    it('keeps the sandbox when the trial fails, and deletes the trial', async () => {
      const kept = workspaceOf('reused', MERGED_HEAD, patch);
      const broken = workspaceOf('created', BASE);
      const { workspaces, log } = workspacesWith([kept, broken], () => Promise.resolve(merged));

      await expect(workspaces.acquire(run, onOwnBranch, noOutput)).rejects.toThrow(
        'unexpected command',
      );
      expect(log).toEqual(['acquired', 'acquired trial', 'released trial', 'discarded trial']);
    });
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
