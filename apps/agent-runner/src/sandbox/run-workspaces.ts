import {
  CARAVEL_NAMESPACE,
  threadBranch,
  uuidV5,
  type EnvelopeOf,
  type StartRunV1,
} from '@caravel/contracts';
import { AppError, isAppError } from '@caravel/errors';
import type { BranchPullRequest, GitHubCodeHost } from '@caravel/integrations';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RunIntegrationsService } from '../integrations/run-integrations.service.js';
import type { WorkBranch } from '../scm/run-subject.js';
import { applyPatch, type PatchApplied } from './apply-patch.js';
import { ThreadSandboxService, type ThreadWorkspace } from './thread-sandbox.service.js';

type StartRun = EnvelopeOf<typeof StartRunV1>['data'];

/** A run's workspace, with what its opening message says of where it starts, when it matters. */
export interface RunWorkspace extends ThreadWorkspace {
  startNote?: string;
}

/**
 * What a run on its thread's own branch says when that branch's pull request was merged and the
 * sandbox started over at the base: the merged commits are in the base, not on the branch again.
 */
export function startedOverNote(merged: BranchPullRequest, branch: string): string {
  return (
    `Your earlier pull request #${merged.number} (${merged.url}) from \`${branch}\` was merged. ` +
    `This run starts over on \`${branch}\` from the base branch's latest commit, which includes ` +
    'that work: commit_and_open_pr opens a new pull request with only what you change now.'
  );
}

/** What a run says when its sandbox was behind its branch and was set up again at its head. */
export function caughtUpNote(branch: string, before: ThreadWorkspace, head: string): string {
  return (
    `Someone pushed to \`${branch}\` since your last run: your sandbox was at ` +
    `${before.baseCommit.slice(0, 12)}, behind the branch's head ${head.slice(0, 12)}, with ` +
    'nothing of its own, so it was set up again at that head. Read what they changed (git log) ' +
    'before you build on it.'
  );
}

/**
 * What it says when the sandbox was kept although its pull request was merged; `refused` when its
 * uncommitted changes were tried on the base and did not apply there.
 */
export function keptAfterMergeNote(
  merged: BranchPullRequest,
  branch: string,
  refused?: Extract<PatchApplied, { applied: false }>,
): string {
  const why = refused
    ? ' Its uncommitted changes were not carried over onto the base branch because they do not ' +
      `apply there: ${unappliedText(refused)}.`
    : '';
  return (
    `Your earlier pull request #${merged.number} (${merged.url}) from \`${branch}\` was merged, ` +
    'but your sandbox holds work that was not in it (changes or commits since), so it was kept ' +
    `as it is: a new pull request from \`${branch}\` would carry #${merged.number}'s commits ` +
    `again.${why} Say so with reply_to_user if that matters for what you were asked.`
  );
}

/** What a run says when its sandbox's uncommitted changes were carried over onto the base. */
export function carriedOverNote(merged: BranchPullRequest, branch: string): string {
  return (
    `${startedOverNote(merged, branch)} Your sandbox held uncommitted changes that were not in ` +
    `#${merged.number}: they were carried over onto the base in the new sandbox, still ` +
    'uncommitted (git status and git diff show them), and are part of what you change now.'
  );
}

/** The files a patch refused, with why: `a.ts` (patch does not apply), … */
function unappliedText(refused: Extract<PatchApplied, { applied: false }>): string {
  if (refused.files.length === 0) return refused.output.split('\n')[0] ?? 'git apply failed';
  return refused.files.map((file) => `\`${file.path}\` (${file.reason})`).join(', ');
}

/** Acquires the thread's sandbox on the run's branch; by default at the base after a merge. */
type Acquire = (from?: { atBase?: true; startFrom?: string }) => Promise<ThreadWorkspace>;

/** What a run's sandbox is acquired against: the code host, and its branch's pull request. */
interface BranchState {
  host: GitHubCodeHost | null;
  /** The thread branch's pull request, when the run works there and GitHub answered. */
  pull: BranchPullRequest | null;
}

/**
 * Gets a run's sandbox on the branch it works on, where that branch is now:
 * - on the thread's own branch, its pull request is read first: once merged (and none open), the
 *   run starts over at the base, in a new sandbox when the thread's holds nothing beyond the
 *   merged head, or only uncommitted changes that apply on the base (carried over there); else
 *   it is kept, and the run told;
 * - a kept sandbox with nothing of its own that is behind the branch's head on GitHub (someone
 *   pushed to the branch since: a pull request's head, or the thread branch's open pull
 *   request's) is set up again at that head, instead of starting behind and having its push
 *   refused;
 * - a new sandbox continues the branch as the repository has it (the broker's default), so a
 *   reclaimed sandbox never restarts a pull request's branch from the base.
 * A read that fails leaves the sandbox as the broker gave it.
 */
@Injectable()
export class RunWorkspaces {
  private readonly log = new Logger('RunWorkspaces');

  constructor(
    @Inject(ThreadSandboxService) private readonly sandboxes: ThreadSandboxService,
    @Inject(RunIntegrationsService) private readonly integrations: RunIntegrationsService,
  ) {}

  async acquire(
    run: StartRun,
    target: WorkBranch,
    onExecOutput: (text: string) => void,
    signal?: AbortSignal,
  ): Promise<RunWorkspace> {
    const branch = await this.branchState(run, target);
    const merged = branch.pull?.state === 'merged' ? branch.pull : null;
    const acquire: Acquire = (from = merged ? { atBase: true } : {}) =>
      this.sandboxes.forRun(run.threadId, target.repository, {
        branch: target.branch,
        ...(target.startRef ? { startRef: target.startRef } : {}),
        ...from,
        onExecOutput,
        ...(signal ? { signal } : {}),
      });
    const workspace = await acquire();
    if (merged) return this.afterMerge(run, workspace, merged, target, acquire);
    const head = target.head ?? (branch.pull?.state === 'open' ? branch.pull.headSha : null);
    if (!head || !branch.host || workspace.outcome === 'created') return workspace;
    if (!(await this.behind(run.threadId, branch.host, workspace, head))) return workspace;
    await this.replace(run.threadId);
    this.log.log(`thread ${run.threadId}: its sandbox was behind ${target.branch}; set up again`);
    return { ...(await acquire()), startNote: caughtUpNote(target.branch, workspace, head) };
  }

  /** Ends the thread's session on the broker (the sandbox and its work stay). */
  release(threadId: string): Promise<void> {
    return this.sandboxes.release(threadId);
  }

  /** Where the run starts once its branch's pull request was merged (see the class). */
  private async afterMerge(
    run: StartRun,
    workspace: ThreadWorkspace,
    merged: BranchPullRequest,
    target: WorkBranch,
    acquire: Acquire,
  ): Promise<RunWorkspace> {
    const { threadId } = run;
    if (workspace.outcome === 'created') {
      return { ...workspace, startNote: startedOverNote(merged, target.branch) };
    }
    // At the merged head, what the sandbox holds beyond the merge is its uncommitted changes.
    const changes = workspace.baseCommit === merged.headSha ? await workspace.tools.diff() : null;
    if (changes === null) {
      this.log.log(
        `thread ${threadId}: #${merged.number} was merged; its sandbox has commits since, kept`,
      );
      return { ...workspace, startNote: keptAfterMergeNote(merged, target.branch) };
    }
    if (changes !== '') return this.carryOver(run, workspace, changes, merged, target, acquire);
    await this.replace(threadId);
    this.log.log(`thread ${threadId}: #${merged.number} was merged; a new sandbox at the base`);
    return { ...(await acquire()), startNote: startedOverNote(merged, target.branch) };
  }

  /**
   * Starts the run over at the base with the kept sandbox's uncommitted changes (`patch`) applied
   * there, as a retry-and-select winner's patch is. They are tried first in a sandbox of its own
   * at the base: the thread's sandbox is deleted only once they apply, and its new one starts from
   * that trial's HEAD, so they apply again to the same tree. Changes that do not apply leave the
   * sandbox kept, and the run told which files.
   */
  private async carryOver(
    run: StartRun,
    kept: ThreadWorkspace,
    patch: string,
    merged: BranchPullRequest,
    target: WorkBranch,
    acquire: Acquire,
  ): Promise<RunWorkspace> {
    const { threadId } = run;
    const trialId = uuidV5(`carry-over:${run.runId}`, CARAVEL_NAMESPACE);
    const tried = await this.tryOnBase(trialId, target, patch);
    if (!tried.applied) {
      this.log.log(
        `thread ${threadId}: #${merged.number} was merged; its uncommitted changes do not apply on the base, kept`,
      );
      return { ...kept, startNote: keptAfterMergeNote(merged, target.branch, tried) };
    }
    await this.replace(threadId);
    const fresh = await acquire({ startFrom: trialId });
    const applied = await applyPatch(fresh.sandbox, patch);
    if (!applied.applied) {
      throw new AppError(
        'CONFLICT',
        `thread ${threadId}: its uncommitted changes no longer apply on the base (they are in the sandbox of ${trialId}): ${applied.output}`,
      );
    }
    await this.sandboxes.discard(trialId);
    this.log.log(
      `thread ${threadId}: #${merged.number} was merged; its uncommitted changes carried over to a new sandbox at the base`,
    );
    return { ...fresh, startNote: carriedOverNote(merged, target.branch) };
  }

  /** Applies `patch` in a new sandbox at the base (`trialId`'s), deleted again unless it applied. */
  private async tryOnBase(trialId: string, target: WorkBranch, patch: string) {
    const atBase = () =>
      this.sandboxes.forRun(trialId, target.repository, { branch: target.branch, atBase: true });
    let trial = await atBase();
    // One left by an earlier try of this run (its runner died) may hold the patch already.
    if (trial.outcome !== 'created') {
      await this.replace(trialId);
      trial = await atBase();
    }
    let tried: PatchApplied | undefined;
    try {
      tried = await applyPatch(trial.sandbox, patch);
      return tried;
    } finally {
      await this.sandboxes.release(trialId);
      if (!tried?.applied) await this.sandboxes.discard(trialId);
    }
  }

  /** The code host, and the thread branch's pull request when the run works on that branch. */
  private async branchState(run: StartRun, target: WorkBranch): Promise<BranchState> {
    const host = this.integrations.pullRequestHost(run);
    const ownBranch = target.branch === threadBranch(run.threadId) && !target.startRef;
    if (!host || !ownBranch) return { host, pull: null };
    const pull = await this.readOrNull(run.threadId, "its branch's pull request", () =>
      host.branchPullRequest(target.branch),
    );
    return { host, pull };
  }

  /**
   * True when the kept sandbox has nothing of its own (no change since its HEAD) and GitHub says
   * the branch's `head` is ahead of that HEAD: everything the sandbox holds is in the branch.
   */
  private async behind(
    threadId: string,
    host: GitHubCodeHost,
    workspace: ThreadWorkspace,
    head: string,
  ): Promise<boolean> {
    if (workspace.baseCommit === head || (await workspace.tools.diff()) !== '') return false;
    const how = await this.readOrNull(threadId, 'how its sandbox relates to the branch', () =>
      host.compare(workspace.baseCommit, head),
    );
    return how === 'ahead';
  }

  /** Deletes the thread's sandbox, whose work is all on GitHub, for a new one. */
  private async replace(threadId: string): Promise<void> {
    await this.sandboxes.release(threadId);
    await this.sandboxes.discard(threadId);
  }

  /** A read from GitHub, or null (logged) when it answers with a coded error. */
  private async readOrNull<T>(
    threadId: string,
    what: string,
    read: () => Promise<T>,
  ): Promise<T | null> {
    try {
      return await read();
    } catch (error) {
      if (!isAppError(error)) throw error;
      this.log.warn(`thread ${threadId}: ${what} is unreadable: ${error.message}`);
      return null;
    }
  }
}
