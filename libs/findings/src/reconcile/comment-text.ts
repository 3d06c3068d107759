import { TITLE_MAX_CHARS, type Severity } from '../model/finding.model.js';

/** What a review comment written by someone else says, read for the ledger. */
export interface CommentReading {
  title: string;
  description: string;
  severity: Severity;
  suggestion: string | null;
}

// Letters, not \b: `_Major_` has no word boundary before its underscore.
const word = (alternatives: string): RegExp =>
  new RegExp(`(?<![a-z])(?:${alternatives})(?![a-z])`, 'i');
const SEVERITY_WORDS: readonly [RegExp, Severity][] = [
  [word('critical'), 'critical'],
  [word('high|major'), 'high'],
  [word('medium|moderate'), 'medium'],
  [word('low|minor|trivial|nit|nitpick'), 'low'],
];

/**
 * A label line such as Bugbot's `**Medium Severity**`, CodeRabbit's `_⚠️ Potential issue_ |
 * _🟠 Major_` or `Severity: high`: where review bots write how bad a comment is.
 */
const LABEL_LINE =
  /^[\s*_|>\p{Extended_Pictographic}\uFE0F-]*(?:(?:potential issue|refactor suggestion|nitpick|(?:critical|high|medium|low|major|minor|trivial)(?: severity)?|severity:?\s*\w+)[\s*_|\p{Extended_Pictographic}\uFE0F]*)+$/iu;

/**
 * Reads another reviewer's comment: HTML comments and `<details>` blocks (bots' prompts for AI
 * agents, committable patches) and tags dropped; the first ```suggestion block taken as the
 * suggestion; a severity from the bot's label line (medium when there is none); the first line of
 * prose as the title (≤ 120 characters), the rest as the description.
 */
export function readReviewComment(body: string): CommentReading {
  let text = body.replace(/\r\n/g, '\n').replace(/<!--[\s\S]*?-->/g, '');
  let previous: string;
  do {
    previous = text;
    text = text.replace(/<details\b[^>]*>(?:(?!<details\b)[\s\S])*?<\/details>/gi, '');
  } while (text !== previous);
  let suggestion: string | null = null;
  text = text.replace(
    /^(`{3,})suggestion[^\n]*\n([\s\S]*?)^\1\s*$/m,
    (_whole, _fence, content: string) => {
      suggestion ??= content.replace(/\n$/, '');
      return '';
    },
  );
  text = text.replace(/<\/?[a-z][^>]*>/gi, '');
  const lines = text.split('\n').map((line) => line.trim());
  const labels = lines.filter((line) => line !== '' && LABEL_LINE.test(line));
  const prose = lines.filter((line) => line !== '' && !LABEL_LINE.test(line));
  const first = prose[0] ?? 'Review comment';
  const title = truncate(plain(first), TITLE_MAX_CHARS);
  const rest = prose.slice(1).join('\n').trim();
  return {
    title,
    description: rest === '' ? plain(first) : rest,
    severity: severityOf(labels.join(' ')),
    suggestion,
  };
}

function severityOf(labels: string): Severity {
  for (const [pattern, severity] of SEVERITY_WORDS) {
    if (pattern.test(labels)) return severity;
  }
  return 'medium';
}

/** A markdown line as plain text: heading marks, emphasis and code ticks removed. */
function plain(line: string): string {
  return line
    .replace(/^#+\s*/, '')
    .replace(/[*_`]+/g, '')
    .trim();
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}
