import { sandboxError } from '../sandbox.errors.js';

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (
    let at = haystack.indexOf(needle);
    at >= 0;
    at = haystack.indexOf(needle, at + needle.length)
  ) {
    count += 1;
  }
  return count;
}

/**
 * Replaces `oldText` by `newText` exactly (no regex, no whitespace folding). Refuses an empty or
 * absent `oldText`, and one that occurs more than once unless `replaceAll` is set.
 */
export function replaceExact(
  content: string,
  oldText: string,
  newText: string,
  options: { replaceAll?: boolean; path: string },
): { content: string; replacements: number } {
  if (typeof oldText !== 'string' || oldText.length === 0) {
    throw sandboxError('invalid_input', 'the text to replace must be a non-empty string');
  }
  if (typeof newText !== 'string') {
    throw sandboxError('invalid_input', 'the replacement must be a string');
  }
  const count = countOccurrences(content, oldText);
  if (count === 0) {
    throw sandboxError(
      'edit_text_absent',
      `the text to replace does not occur in ${options.path}`,
      {
        path: options.path,
      },
    );
  }
  if (count > 1 && !options.replaceAll) {
    throw sandboxError(
      'edit_text_ambiguous',
      `the text to replace occurs ${count} times in ${options.path}; add context or set replaceAll`,
      { path: options.path, occurrences: count },
    );
  }
  return { content: content.split(oldText).join(newText), replacements: count };
}
