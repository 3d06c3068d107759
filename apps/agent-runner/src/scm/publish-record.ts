import type { RunConclusion } from '@caravel/agent';
import { isAppError } from '@caravel/errors';
import type * as Tools from '@caravel/tools';

/** The part of a failure's message a person is told (the tool's observation has all of it). */
const MAX_REASON_CHARS = 300;

/** Why the run's last publish failed, in one line. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.trim().split('\n')[0] ?? '';
  const code = isAppError(error) ? ` (${error.code})` : '';
  return `${line.slice(0, MAX_REASON_CHARS)}${code}`;
}

/**
 * What became of a run's publishing, so a run never reports success for changes that did not
 * reach its pull request. It watches the run's SCM ({@link track}): a commit, push, pull request
 * read, open or update that fails marks the run's work unpublished; an open or update that
 * succeeds (the last step of publishing) marks it published again. The "always create pull
 * requests" policy letting a `submit` through with changes no pull request holds marks it too
 * ({@link notePolicyUnmet}).
 */
export class PublishRecord {
  private lastFailure: string | null = null;
  /** The coded reason of the last failure (`details.reason`, e.g. `workflow_permission`). */
  private lastFailureCode: string | null = null;
  private policyUnmet = false;

  /** `scm`, every call of it recorded here. */
  track(scm: Tools.ScmPort): RecordedScm {
    return new RecordedScm(scm, this);
  }

  /** The requester's "always create pull requests" policy let a finish through without one. */
  notePolicyUnmet(): void {
    this.policyUnmet = true;
  }

  /** Why the run's changes are not in its pull request; null when nothing says they are not. */
  unpublishedReason(): string | null {
    if (this.lastFailure !== null) return `their last publish failed: ${this.lastFailure}`;
    if (this.policyUnmet) {
      return 'the person who asked always wants a pull request, and none was opened for them';
    }
    return null;
  }

  /**
   * The run's conclusion as it stands: a clean `submitted` with changes its pull request does not
   * hold becomes `submitted (exit_unpublished)`, the changes still its submission, the reason its
   * observation (`The changes are not in a pull request (<reason code>): …` when the failure had
   * one, which dispatch's failure reply explains, e.g. `workflow_permission`). Every other
   * conclusion is returned as it is.
   */
  conclude(conclusion: RunConclusion): RunConclusion {
    const reason = this.unpublishedReason();
    if (conclusion.exitStatus !== 'submitted' || conclusion.submission === null || !reason) {
      return conclusion;
    }
    const code =
      this.lastFailure !== null && this.lastFailureCode ? ` (${this.lastFailureCode})` : '';
    return {
      exitStatus: 'submitted (exit_unpublished)',
      submission: conclusion.submission,
      observation:
        `The changes are not in a pull request${code}: ${reason}. They are kept in the thread's ` +
        'sandbox; reply to publish them again.',
    };
  }

  /** Runs one call of the tracked SCM and records how it went. */
  async attempt<T>(call: () => Promise<T>, how: { publishes?: boolean } = {}): Promise<T> {
    try {
      const result = await call();
      if (how.publishes) {
        this.lastFailure = null;
        this.lastFailureCode = null;
        this.policyUnmet = false;
      }
      return result;
    } catch (error) {
      this.lastFailure = reasonOf(error);
      const code = isAppError(error) ? error.details['reason'] : undefined;
      this.lastFailureCode = typeof code === 'string' && /^[a-z_]+$/.test(code) ? code : null;
      throw error;
    }
  }
}

/** A run's SCM whose every call is recorded in its {@link PublishRecord}. */
export class RecordedScm implements Tools.ScmPort {
  constructor(
    readonly inner: Tools.ScmPort,
    private readonly record: PublishRecord,
  ) {}

  commitAndPush(request: Tools.CommitRequest): Promise<Tools.CommitOutcome> {
    return this.record.attempt(() => this.inner.commitAndPush(request));
  }

  findOpenPullRequest(branch: string): Promise<Tools.PullRequestRef | null> {
    return this.record.attempt(() => this.inner.findOpenPullRequest(branch));
  }

  openPullRequest(request: Tools.PullRequestDraft): Promise<Tools.PullRequestRef> {
    return this.record.attempt(() => this.inner.openPullRequest(request), { publishes: true });
  }

  updatePullRequest(number: number, request: Tools.PullRequestText): Promise<Tools.PullRequestRef> {
    return this.record.attempt(() => this.inner.updatePullRequest(number, request), {
      publishes: true,
    });
  }
}
