import { findingsError } from '../findings.errors.js';
import { severityRank, type Finding, type Severity } from './finding.model.js';
import { hasPendingReplies } from './transitions.js';

/**
 * The finding with `id`.
 *
 * @throws AppError `NOT_FOUND` `finding_not_found`, naming the open findings the model can use.
 */
export function findFinding(ledger: readonly Finding[], id: string): Finding {
  const finding = ledger.find((candidate) => candidate.id === id);
  if (finding) return finding;
  const open = ledger.filter((candidate) => candidate.status === 'open').map((f) => f.id);
  throw findingsError(
    'NOT_FOUND',
    'finding_not_found',
    `No finding ${id} on this pull request. Open findings: ${open.join(', ') || 'none'}.`,
    { findingId: id },
  );
}

/** Open findings, most severe first, then by file and line (the order reviews list them in). */
export function openFindings(ledger: readonly Finding[]): Finding[] {
  return sortFindings(ledger.filter((finding) => finding.status === 'open'));
}

/** Findings the reviewer must look at again: a push touched them, a reply came, or another reviewer raised them. */
export function findingsNeedingAttention(ledger: readonly Finding[]): Finding[] {
  return sortFindings(
    ledger.filter((finding) => finding.recheck.length > 0 || hasPendingReplies(finding)),
  );
}

/** Severity descending, then file, then start line (file-level first), then id. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      compareText(a.anchor.file, b.anchor.file) ||
      (a.anchor.startLine ?? 0) - (b.anchor.startLine ?? 0) ||
      compareText(a.id, b.id),
  );
}

/** Whether a severity is at or above a threshold. */
export function meetsThreshold(severity: Severity, threshold: Severity): boolean {
  return severityRank(severity) >= severityRank(threshold);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
