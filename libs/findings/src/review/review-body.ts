import type { Finding, Severity } from '../model/finding.model.js';
import { SEVERITIES } from '../model/finding.model.js';
import { linesLabel, severityMark } from './comment-body.js';
import type { VerdictDecision } from './verdict.js';

/** What the review body says, besides its hidden marker. */
export interface ReviewBodyInput {
  headSha: string;
  threshold: Severity;
  cap: number;
  inline: readonly Finding[];
  inBody: readonly Finding[];
  belowThreshold: readonly Finding[];
  overCap: readonly Finding[];
  /** Open findings of the whole ledger (every reviewer). */
  openFindings: number;
  verdict: VerdictDecision;
  webUrl: string | null;
}

/**
 * The review's visible body: a headline with the count of what this review publishes by
 * severity, the open findings from earlier reviews, the count of the rest (under the threshold,
 * over the cap) with a link to all of them, the file-level findings, and a verdict line.
 */
export function reviewBody(input: ReviewBodyInput): string {
  const published = [...input.inline, ...input.inBody];
  const earlier =
    input.openFindings - published.length - input.belowThreshold.length - input.overCap.length;
  const lines = [headline(input.headSha, published, input.openFindings)];
  if (published.length > 0 && earlier > 0)
    lines.push(`Also open: ${plural(earlier, 'finding')} from earlier reviews or other reviewers.`);
  const rest = restLine(input);
  if (rest) lines.push(rest);
  if (input.inBody.length > 0) {
    const heading =
      input.inline.length === 0 && input.inBody.some((f) => f.anchor.startLine !== null)
        ? '**Findings** (not attached to lines: GitHub could not place them in this diff)'
        : '**About whole files**';
    lines.push('', heading, ...input.inBody.map(bodyItem));
  }
  const verdict = verdictLine(input.verdict, input.openFindings);
  if (verdict) lines.push('', verdict);
  return lines.join('\n');
}

function headline(headSha: string, published: readonly Finding[], open: number): string {
  const at = `\`${headSha.slice(0, 7)}\``;
  if (published.length > 0) {
    return `**Caravel** reviewed ${at}: ${plural(published.length, 'potential issue')} (${bySeverity(published)}).`;
  }
  if (open === 0) return `✅ **Caravel** reviewed ${at}: no issues found.`;
  return `**Caravel** reviewed ${at}: no new issues; ${plural(open, 'finding')} still open.`;
}

function restLine(input: ReviewBodyInput): string | null {
  const parts: string[] = [];
  if (input.belowThreshold.length > 0) {
    parts.push(
      `${input.belowThreshold.length} below the ${input.threshold} threshold (${bySeverity(input.belowThreshold)})`,
    );
  }
  if (input.overCap.length > 0) {
    parts.push(
      `${input.overCap.length} over the limit of ${input.cap} per review (${bySeverity(input.overCap)})`,
    );
  }
  if (parts.length === 0) return null;
  const count = input.belowThreshold.length + input.overCap.length;
  const link = input.webUrl ? ` [See all findings](${input.webUrl}).` : '';
  return `${plural(count, 'more finding')} not posted: ${parts.join(', ')}.${link}`;
}

function bodyItem(finding: Finding): string {
  const summary = finding.description.split('\n')[0] ?? '';
  const where = finding.anchor.startLine === null ? '' : `, ${linesLabel(finding)}`;
  return `- ${severityMark(finding.severity)} **${finding.title}** (\`${finding.anchor.file}\`${where}): ${summary}`;
}

function verdictLine(verdict: VerdictDecision, open: number): string | null {
  switch (verdict.reason) {
    case 'clean_review':
      return 'Approved: no finding is open.';
    case 'changes_requested':
      return `Changes requested: ${plural(open, 'finding')} open.`;
    case 'approve_with_open_findings':
      return `Not approved: ${plural(open, 'finding')} still open.`;
    case 'request_changes_without_findings':
    case 'own_pull_request':
    case 'verdict_not_requested':
    case 'approval_not_enabled':
    case 'reviewer_chose_comment':
      return null;
  }
}

/** `1 high, 2 medium`, most severe first. */
function bySeverity(findings: readonly Finding[]): string {
  return [...SEVERITIES]
    .reverse()
    .map((severity) => [severity, findings.filter((f) => f.severity === severity).length] as const)
    .filter(([, count]) => count > 0)
    .map(([severity, count]) => `${count} ${severity}`)
    .join(', ');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
