/**
 * Glob patterns as regular expressions: `**` spans directories, `*` and `?` stay within one,
 * `{a,b}` is an alternation. Used by in-process sandbox implementations; shells have their own.
 */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] ?? '';
    if (char === '*' && pattern[i + 1] === '*') {
      const slashAfter = pattern[i + 2] === '/';
      source += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '{') {
      source += '(?:';
      depth += 1;
    } else if (char === '}' && depth > 0) {
      source += ')';
      depth -= 1;
    } else if (char === ',' && depth > 0) source += '|';
    else source += char.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** True when `path` matches `pattern`; a pattern without `/` is matched against the base name. */
export function matchesGlob(path: string, pattern: string): boolean {
  const subject = pattern.includes('/') ? path : (path.split('/').pop() ?? path);
  return globToRegExp(pattern).test(subject);
}
