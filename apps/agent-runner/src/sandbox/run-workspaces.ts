import { threadBranch, type EnvelopeOf, type StartRunV1 } from '@caravel/contracts';
import { isAppError } from '@caravel/errors';
import type { BranchPullRequest } from '@caravel/integrations';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RunIntegrationsService } from '../integrations/run-integrations.service.js';
import type { WorkBranch } from '../scm/run-subject.js';
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

/** What it says when the sandbox was kept although its pull request was merged. */
export function keptAfterMergeNote(merged: BranchPullRequest, branch: string): string {
  return (
    `Your earlier pull request #${merged.number} (${merged.url}) from \`${branch}\` was merged, ` +
    'but your sandbox holds work that was not in it (changes or commits since), so it was kept ' +
    `as it is: a new pull request from \`${branch}\` would carry #${merged.number}'s commits ` +
    'again. Say so with reply_to_user if that matters for what you were asked.'
  );
}

/**
 * Gets a run's sandbox on the branch it works on. On the thread's own branch, the branch's pull
 * request is read first: once merged (and none open), the run starts over at the base, in a new
 * sandbox when the thread's holds nothing beyond the merged head (else it is kept, and the run
 * told); otherwise a new sandbox continues the branch as the repository has it (the broker's
 * default), so a reclaimed sandbox never restarts a pull request's branch from the base.
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
  ): Promise<RunWorkspace> {
    const { threadId } = run;
    const merged = await this.mergedPullRequest(run, target);
    const acquire = () =>
      this.sandboxes.forRun(threadId, target.repository, {
        branch: target.branch,
        ...(target.startRef ? { startRef: target.startRef } : {}),
        ...(merged ? { atBase: true } : {}),
        onExecOutput,
      });
    const workspace = await acquire();
    if (!merged) return workspace;
    if (workspace.outcome === 'created') {
      return { ...workspace, startNote: startedOverNote(merged, target.branch) };
    }
    if (!(await holdsOnly(workspace, merged.headSha))) {
      this.log.log(
        `thread ${threadId}: #${merged.number} was merged; its sandbox holds more, kept`,
      );
      return { ...workspace, startNote: keptAfterMergeNote(merged, target.branch) };
    }
    await this.sandboxes.release(threadId);
    await this.sandboxes.discard(threadId);
    this.log.log(`thread ${threadId}: #${merged.number} was merged; a new sandbox at the base`);
    return { ...(await acquire()), startNote: startedOverNote(merged, target.branch) };
  }

  /** Ends the thread's session on the broker (the sandbox and its work stay). */
  release(threadId: string): Promise<void> {
    return this.sandboxes.release(threadId);
  }

  /**
   * The merged pull request of the thread's own branch, when the run works there, the branch has
   * no open one, and GitHub answers; null otherwise (the run then works as before).
   */
  private async mergedPullRequest(
    run: StartRun,
    target: WorkBranch,
  ): Promise<BranchPullRequest | null> {
    if (target.branch !== threadBranch(run.threadId) || target.startRef) return null;
    const host = this.integrations.pullRequestHost(run);
    if (!host) return null;
    try {
      const pull = await host.branchPullRequest(target.branch);
      return pull?.state === 'merged' ? pull : null;
    } catch (error) {
      if (!isAppError(error)) throw error;
      this.log.warn(
        `thread ${run.threadId}: its branch's pull request is unreadable: ${error.message}`,
      );
      return null;
    }
  }
}

/** True when the sandbox is at `head` with nothing changed since (its work is all in `head`). */
async function holdsOnly(workspace: ThreadWorkspace, head: string): Promise<boolean> {
  return workspace.baseCommit === head && (await workspace.tools.diff()) === '';
}
