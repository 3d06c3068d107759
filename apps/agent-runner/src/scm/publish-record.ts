import type { RunConclusion } from '@caravel/agent';
import {
  MAX_UNPUBLISHED_FILE_CHARS,
  MAX_UNPUBLISHED_FILES,
  type RunUnpublished,
} from '@caravel/contracts';
import { isAppError } from '@caravel/errors';
import type * as Tools from '@caravel/tools';
import type { RunFinish } from '../services/run-events.js';

/** The part of a failure's message a person is told (the tool's observation has all of it). */
const MAX_REASON_CHARS = 300;

/** Why the run's last publish failed, in one line. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.trim().split('\n')[0] ?? '';
  const code = isAppError(error) ? ` (${error.code})` : '';
  return `${line.slice(0, MAX_REASON_CHARS)}${code}`;
}

/** A coded reason, as `RunFinishedV1.unpublished` carries it. */
const REASON_CODE = /^[a-z][a-z_]{0,63}$/;

/**
 * The coded reason of a failed publish (`details.reason` of the broker's or the code host's
 * `AppError`, e.g. `workflow_permission`) with the files it named (`details.paths`), bounded as
 * {@link RunUnpublished} is; null for a failure without one. Taken from the error the call threw,
 * never from anything the model wrote.
 */
function codedReasonOf(error: unknown): RunUnpublished | null {
  if (!isAppError(error)) return null;
  const { reason, paths } = error.details;
  if (typeof reason !== 'string' || !REASON_CODE.test(reason)) return null;
  const files = (Array.isArray(paths) ? paths : [])
    .filter((path): path is string => typeof path === 'string' && path.length > 0)
    .slice(0, MAX_UNPUBLISHED_FILES)
    .map((path) =>
      path.length > MAX_UNPUBLISHED_FILE_CHARS
        ? `${path.slice(0, MAX_UNPUBLISHED_FILE_CHARS - 1)}…`
        : path,
    );
  return { reason, files };
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
  /** The coded reason of the last failure and the files it named, when it had one. */
  private lastFailureCoded: RunUnpublished | null = null;
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
   * observation, and, when the failed publish had a coded reason, that reason and its files
   * (`unpublished`, which dispatch's failure reply explains, e.g. `workflow_permission`). Every
   * other conclusion is returned as it is.
   */
  conclude(conclusion: RunConclusion): RunFinish {
    const reason = this.unpublishedReason();
    if (conclusion.exitStatus !== 'submitted' || conclusion.submission === null || !reason) {
      return conclusion;
    }
    const coded = this.lastFailure !== null ? this.lastFailureCoded : null;
    return {
      exitStatus: 'submitted (exit_unpublished)',
      submission: conclusion.submission,
      observation:
        `The changes are not in a pull request: ${reason}. They are kept in the thread's ` +
        'sandbox; reply to publish them again.',
      ...(coded ? { unpublished: coded } : {}),
    };
  }

  /** Runs one call of the tracked SCM and records how it went. */
  async attempt<T>(call: () => Promise<T>, how: { publishes?: boolean } = {}): Promise<T> {
    try {
      const result = await call();
      if (how.publishes) {
        this.lastFailure = null;
        this.lastFailureCoded = null;
        this.policyUnmet = false;
      }
      return result;
    } catch (error) {
      this.lastFailure = reasonOf(error);
      this.lastFailureCoded = codedReasonOf(error);
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
