import type { FindingRepository } from '@caravel/db';
import {
  dismissFinding,
  markResolutionPosted,
  markSurfaceError,
  markThreadResolved,
  pendingSurfaceWork,
  resolveFinding,
  type Actor,
  type Finding,
} from '@caravel/findings';
import type { GitHubReviews, PullRequestRef, ReviewThread } from '@caravel/integrations';

/** What the reviewer decided about a finding, with the note posted verbatim in its thread. */
export interface Closing {
  kind: 'resolve' | 'dismiss';
  /** The head the decision was made at. */
  sha: string;
  note: string;
  by?: Actor;
}

/** How closing (or settling) a finding's thread went. */
export type ThreadOutcome =
  | { findingId: string; outcome: 'resolved' }
  | { findingId: string; outcome: 'failed'; error: string };

export type ThreadsGitHub = Pick<GitHubReviews, 'reply' | 'resolveThread'>;

/**
 * The threads of Caravel's inline comments: a note posted verbatim as a reply, then the thread
 * resolved through GraphQL. Each step is written to the ledger as soon as GitHub confirms it, so
 * a retry never posts a note twice; a failed step is recorded on the finding's surface.
 */
export class FindingThreadsService {
  constructor(
    private readonly findings: FindingRepository,
    private readonly github: ThreadsGitHub,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Resolves (fixed by a commit) or dismisses an open finding. A finding with a thread of its own
   * on GitHub closes in the ledger only once that thread is resolved: when posting the note or
   * resolving fails, the finding stays open with the error on its surface, and a retry picks up
   * where this one stopped. The decision is checked first (`resolveFinding` refuses a fix at the
   * commit the finding was found at), so a refused one touches nothing on GitHub.
   */
  async close(
    pr: PullRequestRef,
    findingId: string,
    closing: Closing,
    threads: readonly ReviewThread[] = [],
  ): Promise<ThreadOutcome> {
    const current = await this.findings.get(findingId);
    if (!current) return { findingId, outcome: 'failed', error: `no finding ${findingId}` };
    const closed = closeWith(current, closing, this.at());
    if (current.surface.commentId === null) {
      await this.findings.update(findingId, (f) => closeWith(f, closing, this.at()));
      return { findingId, outcome: 'resolved' };
    }
    const posted = await this.thread(pr, current, noteOf(closed), threads);
    if (posted.outcome === 'failed') return posted;
    await this.findings.update(findingId, (f) =>
      markThreadResolved(closeWith(f, closing, this.at()), this.at()),
    );
    return posted;
  }

  /**
   * Posts the note and resolves the thread of each closed finding whose thread is still open on
   * GitHub (closed by a push that removed its code, or by the reviewer before a failed resolve).
   */
  async settle(
    pr: PullRequestRef,
    ledger: readonly Finding[],
    threads: readonly ReviewThread[],
  ): Promise<ThreadOutcome[]> {
    const outcomes: ThreadOutcome[] = [];
    for (const finding of ledger) {
      const work = pendingSurfaceWork(finding);
      if (work !== 'post_resolution_note' && work !== 'resolve_thread') continue;
      const outcome = await this.thread(pr, finding, noteOf(finding), threads);
      if (outcome.outcome === 'resolved') {
        await this.findings.update(finding.id, (f) => markThreadResolved(f, this.at()));
      }
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /** Posts `note` (unless posted already) and resolves the finding's thread on GitHub. */
  private async thread(
    pr: PullRequestRef,
    finding: Finding,
    note: string,
    threads: readonly ReviewThread[],
  ): Promise<ThreadOutcome> {
    const commentId = finding.surface.commentId as string;
    try {
      if (finding.surface.resolutionCommentId === null) {
        const replyId = await this.github.reply(pr, commentId, note);
        await this.findings.update(finding.id, (f) =>
          markResolutionPosted(f, { commentId: replyId, at: this.at() }),
        );
      }
      const threadId =
        finding.surface.threadId ??
        threads.find((thread) => thread.firstCommentId === commentId)?.threadId;
      if (!threadId) throw new Error(`GitHub lists no review thread for comment ${commentId}`);
      await this.github.resolveThread(pr, threadId);
      return { findingId: finding.id, outcome: 'resolved' };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.findings.update(finding.id, (f) =>
        markSurfaceError(f, { error: message, at: this.at() }),
      );
      return { findingId: finding.id, outcome: 'failed', error: message };
    }
  }

  private at(): string {
    return this.now().toISOString();
  }
}

function closeWith(finding: Finding, closing: Closing, at: string): Finding {
  return closing.kind === 'resolve'
    ? resolveFinding(finding, { sha: closing.sha, note: closing.note, at, by: closing.by })
    : dismissFinding(finding, {
        sha: closing.sha,
        note: closing.note,
        at,
        by: closing.by ?? { kind: 'caravel' },
      });
}

/** The note a closed finding's thread gets: the decision's note verbatim, or why the code went. */
export function noteOf(finding: Finding): string {
  const resolution = finding.resolution;
  if (resolution === null) return '';
  if (resolution.kind === 'code_removed') {
    return `The code this comment was on was removed in \`${resolution.sha.slice(0, 7)}\`.`;
  }
  return resolution.note;
}
