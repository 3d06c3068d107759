import { dismissFinding, type Finding } from '@caravel/findings';
import type { ListedReviewComment } from '@caravel/integrations';

/** Why Caravel dismissed a finding that only outsiders raised (kept on it; never posted). */
export const OUTSIDER_NOTE =
  'Raised only in review comments of people outside the repository (not its owner, a member or ' +
  'a collaborator): those are not findings of this review.';

/**
 * The open findings raised only by `outsiders`' review comments (every report one of theirs),
 * dismissed by Caravel at `change.sha`: ledgers filled before only the repository's own people
 * counted would otherwise keep a stranger's word open, and the verdict with it. Nothing is posted:
 * Caravel never commented on them. A finding one of the repository's people also reported stays.
 */
export function dismissOutsidersFindings(
  findings: readonly Finding[],
  outsiders: readonly ListedReviewComment[],
  change: { sha: string; at: string },
): Finding[] {
  const theirs = new Set(outsiders.map((comment) => comment.commentId));
  return findings
    .filter(
      (f) =>
        f.status === 'open' &&
        f.author.kind !== 'caravel' &&
        f.reports.length > 0 &&
        f.reports.every((report) => theirs.has(report.commentId)),
    )
    .map((f) => dismissFinding(f, { ...change, note: OUTSIDER_NOTE, by: { kind: 'caravel' } }));
}
