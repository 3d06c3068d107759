import type { Actor, Finding } from '@caravel/findings';
import { wrapUntrusted } from '@caravel/tools';

const who = (author: Actor): string => (author.kind === 'caravel' ? 'caravel' : author.login);

function where(finding: Finding): string {
  const { file, startLine, endLine } = finding.anchor;
  if (startLine === null) return file;
  return startLine === endLine ? `${file}:${startLine}` : `${file}:${startLine}-${endLine}`;
}

/**
 * `FINDINGS.md`: the review ledger's open findings, one section each. What the ledger states
 * (id, severity, place, who raised it) is plain; the title, description and suggestion were
 * written by a model, a bot or a person, so they are wrapped as untrusted content. Null when
 * none is open.
 */
export function renderOpenFindings(findings: readonly Finding[]): string | null {
  const open = findings.filter((f) => f.status === 'open');
  if (open.length === 0) return null;
  const sections = open.map((finding) => {
    const text = [
      finding.title,
      '',
      finding.description,
      ...(finding.suggestion ? ['', 'Suggested:', finding.suggestion] : []),
    ].join('\n');
    return [
      `## ${finding.id}: ${finding.severity} ${finding.category} at ${where(finding)}`,
      `Raised by ${who(finding.author)}${finding.inDiff ? '' : ' (no longer in the diff)'}.`,
      wrapUntrusted(text, { source: 'review_finding', author: who(finding.author) }),
    ].join('\n');
  });
  return [
    `# Open review findings (${open.length})`,
    'From the review ledger of this pull request; lines are at the head the finding follows.',
    '',
    sections.join('\n\n'),
  ].join('\n');
}
