import { z } from 'zod';

import { findingsError } from '../findings.errors.js';
import {
  notSurfaced,
  severitySchema,
  TITLE_MAX_CHARS,
  type Actor,
  type Finding,
  type Severity,
  type Surface,
} from './finding.model.js';
import { fingerprintOf } from './fingerprint.js';

// Every transition returns a new finding, or the same object when nothing changes, so a
// repository writes a row only when `next !== previous`.

/** The reviewer checked the finding at `sha` and it still holds: recheck and replies are settled. */
export function confirmFinding(finding: Finding, change: { sha: string; at: string }): Finding {
  requireOpen(finding, 'confirm');
  const settled = finding.recheck.length === 0 && !hasPendingReplies(finding);
  if (finding.lastConfirmedSha === change.sha && settled) return finding;
  return {
    ...finding,
    lastConfirmedSha: change.sha,
    recheck: [],
    interactions: settleReplies(finding),
    updatedAt: change.at,
  };
}

/**
 * The reviewer checked the code at `sha` and the problem is gone. `note` is posted verbatim as the
 * reply in the finding's thread.
 *
 * @throws AppError `CONFLICT` when the finding is not open, or when `sha` is the commit it was
 *   found at (nothing was committed since: a wrong finding is dismissed, not fixed).
 */
export function resolveFinding(
  finding: Finding,
  change: { sha: string; note: string; at: string; by?: Actor },
): Finding {
  requireOpen(finding, 'resolve');
  if (change.sha === finding.firstSeenSha) {
    throw findingsError(
      'CONFLICT',
      'not_fixed_by_commit',
      `${finding.id} was found at ${change.sha.slice(0, 7)}, the commit under review: no commit can have fixed it. If the finding was wrong, dismiss it with a note saying why.`,
      { findingId: finding.id },
    );
  }
  return close(finding, 'resolved', {
    kind: 'fixed_by_commit',
    sha: change.sha,
    note: requireNote(change.note),
    by: change.by ?? { kind: 'caravel' },
    at: change.at,
  });
}

/**
 * Someone decided the finding is not a problem (or not worth fixing): a person, or Caravel
 * retracting its own. `note` is posted verbatim as the reply in the finding's thread.
 */
export function dismissFinding(
  finding: Finding,
  change: { sha: string; note: string; by: Actor; at: string },
): Finding {
  requireOpen(finding, 'dismiss');
  return close(finding, 'dismissed', {
    kind: 'dismissed',
    sha: change.sha,
    note: requireNote(change.note),
    by: change.by,
    at: change.at,
  });
}

/** The problem is back (or was closed wrongly): open again, confirmed at `sha`, to be published anew. */
export function reopenFinding(finding: Finding, change: { sha: string; at: string }): Finding {
  if (finding.status === 'open') {
    throw transitionError(finding, 'reopen', 'it is open already');
  }
  const unresolvedThread = finding.surface.state === 'resolve_pending';
  return {
    ...finding,
    status: 'open',
    resolution: null,
    lastConfirmedSha: change.sha,
    recheck: [],
    interactions: settleReplies(finding),
    surface: unresolvedThread
      ? { ...finding.surface, state: 'surfaced', lastError: null }
      : notSurfacedAgain(finding.surface),
    updatedAt: change.at,
  };
}

/** What the reviewer may change on an open finding (`update_finding`'s edits). */
export const findingRevisionSchema = z.strictObject({
  severity: severitySchema.optional(),
  title: z.string().trim().min(1).max(TITLE_MAX_CHARS).optional(),
  description: z.string().trim().min(1).optional(),
  category: z.string().trim().min(1).max(60).optional(),
  suggestion: z.string().nullable().optional(),
});
export type FindingRevision = z.infer<typeof findingRevisionSchema>;

/**
 * Edits an open finding; a new description gives it a new fingerprint (same filed lines).
 *
 * @throws AppError `BAD_REQUEST` `invalid_input` for an invalid revision.
 */
export function reviseFinding(finding: Finding, raw: FindingRevision, at: string): Finding {
  requireOpen(finding, 'revise');
  const parsed = findingRevisionSchema.safeParse(raw);
  if (!parsed.success) {
    throw findingsError(
      'BAD_REQUEST',
      'invalid_input',
      `The revision is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}.`,
    );
  }
  const revision = parsed.data;
  const next = { ...finding, ...definedOnly(revision) };
  const same = (Object.keys(revision) as (keyof FindingRevision)[]).every(
    (key) => revision[key] === undefined || revision[key] === finding[key],
  );
  if (same) return finding;
  next.fingerprint = fingerprintOf({ ...finding, description: next.description });
  next.updatedAt = at;
  return next;
}

/**
 * Caravel published the finding (or recognised it after a retried publish): as an inline comment,
 * or listed in the review's body (`commentId` null: a file-level finding, no thread of its own).
 */
export function markSurfaced(
  finding: Finding,
  surfaced: {
    reviewId: string;
    commentId: string | null;
    threadId?: string | null;
    sha: string;
    threshold?: Severity | null;
    at: string;
  },
): Finding {
  const { surface } = finding;
  const same = surface.reviewId === surfaced.reviewId && surface.commentId === surfaced.commentId;
  if (same && surface.state !== 'error') return finding;
  return {
    ...finding,
    surface: {
      ...surface,
      state: finding.status === 'open' ? 'surfaced' : closedState(surfaced.commentId),
      reviewId: surfaced.reviewId,
      commentId: surfaced.commentId,
      threadId: surfaced.threadId ?? surface.threadId,
      severityThresholdAtPublish: surfaced.threshold ?? null,
      surfacedAtSha: surfaced.sha,
      lastSyncAt: surfaced.at,
      lastError: null,
    },
    updatedAt: surfaced.at,
  };
}

/** The resolution note was posted as a reply (kept so a retry does not post it twice). */
export function markResolutionPosted(
  finding: Finding,
  posted: { commentId: string; at: string },
): Finding {
  if (finding.surface.resolutionCommentId === posted.commentId) return finding;
  return {
    ...finding,
    surface: { ...finding.surface, resolutionCommentId: posted.commentId, lastSyncAt: posted.at },
    updatedAt: posted.at,
  };
}

/** The finding's thread was resolved on the SCM. */
export function markThreadResolved(finding: Finding, at: string): Finding {
  if (finding.surface.state === 'resolved') return finding;
  return {
    ...finding,
    surface: { ...finding.surface, state: 'resolved', lastSyncAt: at, lastError: null },
    updatedAt: at,
  };
}

/** Publishing the finding, or resolving its thread, failed; what is still to do stays derivable. */
export function markSurfaceError(
  finding: Finding,
  failure: { error: string; at: string },
): Finding {
  return {
    ...finding,
    surface: {
      ...finding.surface,
      state: 'error',
      lastError: failure.error,
      lastSyncAt: failure.at,
    },
    updatedAt: failure.at,
  };
}

/**
 * What the SCM still needs for the finding: `publish` (open, in no review of Caravel's yet),
 * `post_resolution_note` then `resolve_thread` (closed, its comment still unresolved), or nothing.
 */
export function pendingSurfaceWork(
  finding: Finding,
): 'publish' | 'post_resolution_note' | 'resolve_thread' | null {
  const { surface } = finding;
  if (finding.status === 'open') {
    return finding.author.kind === 'caravel' && surface.reviewId === null ? 'publish' : null;
  }
  if (surface.commentId === null || surface.state === 'resolved') return null;
  return surface.resolutionCommentId === null ? 'post_resolution_note' : 'resolve_thread';
}

/** Whether a reply in the finding's thread waits for the reviewer to look again. */
export function hasPendingReplies(finding: Finding): boolean {
  return finding.interactions.some((interaction) => interaction.needsReassessment);
}

function close(
  finding: Finding,
  status: 'resolved' | 'dismissed',
  resolution: NonNullable<Finding['resolution']>,
): Finding {
  const surfaced = finding.surface.commentId !== null;
  return {
    ...finding,
    status,
    resolution,
    recheck: [],
    interactions: settleReplies(finding),
    surface: surfaced ? { ...finding.surface, state: 'resolve_pending' } : finding.surface,
    updatedAt: resolution.at,
  };
}

/** A closed finding's thread still has to be resolved; one listed in a review body has none. */
function closedState(commentId: string | null): Surface['state'] {
  return commentId === null ? 'resolved' : 'resolve_pending';
}

function settleReplies(finding: Finding): Finding['interactions'] {
  return hasPendingReplies(finding)
    ? finding.interactions.map((interaction) => ({ ...interaction, needsReassessment: false }))
    : finding.interactions;
}

function notSurfacedAgain(surface: Surface): Surface {
  return { ...notSurfaced(), lastSyncAt: surface.lastSyncAt };
}

function requireOpen(finding: Finding, action: string): void {
  if (finding.status !== 'open') throw transitionError(finding, action, `it is ${finding.status}`);
}

function transitionError(finding: Finding, action: string, why: string) {
  return findingsError(
    'CONFLICT',
    'invalid_transition',
    `Cannot ${action} ${finding.id}: ${why}. List the findings to see their status.`,
    { findingId: finding.id, status: finding.status },
  );
}

function requireNote(note: string): string {
  const trimmed = note.trim();
  if (trimmed === '') {
    throw findingsError(
      'BAD_REQUEST',
      'invalid_input',
      'A note is required: it is posted verbatim as the reply in the finding thread, so say what changed or why it is not a problem.',
    );
  }
  return trimmed;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<T>;
}
