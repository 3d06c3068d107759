import { AppError } from '@caravel/errors';

/** The longest plan `save_plan` accepts, in characters. */
export const MAX_PLAN_CHARS = 100_000;

const FENCE = /^(```|~~~)/;
const UNSAFE_LINK = /\]\(\s*<?\s*(?:javascript|vbscript|data|file):(?:[^()]|\([^()]*\))*\)/gi;

/**
 * Makes a plan a self-contained artifact the dashboard can render as markdown without running
 * anything: raw HTML outside fenced code is escaped (no tags, so no scripts, iframes, forms or
 * event handlers), and links to `javascript:`, `vbscript:`, `data:` or `file:` URLs are cut.
 * An empty or oversized plan is refused with BAD_REQUEST.
 */
export function sanitizePlanMarkdown(markdown: string): string {
  const text = markdown.replace(/\r\n?/g, '\n').trim();
  if (text === '') throw new AppError('BAD_REQUEST', 'The plan is empty: write the plan first.');
  if (text.length > MAX_PLAN_CHARS) {
    throw new AppError(
      'BAD_REQUEST',
      `The plan has ${text.length} characters; the limit is ${MAX_PLAN_CHARS}. Shorten it.`,
    );
  }
  let inFence = false;
  return text
    .split('\n')
    .map((line) => {
      if (FENCE.test(line.trimStart())) {
        inFence = !inFence;
        return line;
      }
      if (inFence) return line;
      return line.replace(/</g, '&lt;').replace(UNSAFE_LINK, '](#removed-link)');
    })
    .join('\n');
}
