import type { Finding, Severity } from '../model/finding.model.js';
import { renderFindingMarker } from './markers.js';

const SEVERITY_MARK: Record<Severity, string> = {
  critical: '🔴',
  high: '🟠',
  medium: '🟡',
  low: '🔵',
};

/** The mark shown before a finding's title. */
export function severityMark(severity: Severity): string {
  return SEVERITY_MARK[severity];
}

/**
 * The body of a finding's inline comment: the hidden marker (its id and anchor, so a retried
 * publish is recognised), severity mark and bold title, the description, a ```suggestion block
 * GitHub can apply (RIGHT line anchors only), the lines it refers to, and a feedback line.
 */
export function inlineCommentBody(finding: Finding): string {
  const { anchor } = finding;
  const parts = [
    renderFindingMarker({
      v: 1,
      id: finding.id,
      file: anchor.file,
      start_line: anchor.startLine,
      end_line: anchor.endLine,
      side: anchor.side,
    }),
    `${severityMark(finding.severity)} **${finding.title}**`,
    finding.description,
  ];
  if (finding.suggestion !== null && anchor.side === 'RIGHT' && anchor.startLine !== null) {
    parts.push(suggestionBlock(finding.suggestion));
  }
  parts.push(
    `<sub>${finding.severity} · ${finding.category} · confidence ${finding.confidence} · ${linesLabel(finding)} · ${finding.id}</sub>`,
    '<sub>Was this useful? React with 👍 or 👎.</sub>',
  );
  return parts.join('\n\n');
}

/**
 * A GitHub suggestion block: the lines that replace the commented range. The fence is longer than
 * any run of backticks in the suggestion, so code holding a fence cannot close it early.
 */
export function suggestionBlock(suggestion: string): string {
  const longest = Math.max(0, ...(suggestion.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}suggestion\n${suggestion}\n${fence}`;
}

/** `line 12`, `lines 10-14`, or `whole file`, with the side when it is the old version. */
export function linesLabel(finding: Pick<Finding, 'anchor'>): string {
  const { startLine, endLine, side } = finding.anchor;
  if (startLine === null || endLine === null) return 'whole file';
  const lines = startLine === endLine ? `line ${startLine}` : `lines ${startLine}-${endLine}`;
  return side === 'LEFT' ? `${lines} (old version)` : lines;
}
