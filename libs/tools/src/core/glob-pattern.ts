import { AppError } from '@caravel/errors';

const SPECIAL = /[\\^$.|+()]/;

function braceAlternatives(pattern: string, start: number): { regex: string; end: number } {
  let depth = 0;
  for (let i = start; i < pattern.length; i += 1) {
    if (pattern[i] === '{') depth += 1;
    else if (pattern[i] === '}' && --depth === 0) {
      const parts = splitTopLevel(pattern.slice(start + 1, i));
      return { regex: `(?:${parts.map(globBody).join('|')})`, end: i };
    }
  }
  throw new AppError('BAD_REQUEST', `unclosed { in glob ${JSON.stringify(pattern)}`);
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of body) {
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
      continue;
    }
    if (char === '{') depth += 1;
    if (char === '}') depth -= 1;
    current += char;
  }
  return [...parts, current];
}

function charClass(pattern: string, start: number): { regex: string; end: number } {
  const end = pattern.indexOf(']', start + 2);
  if (end < 0) return { regex: '\\[', end: start };
  let body = pattern.slice(start + 1, end).replace(/\\/g, '\\\\');
  if (body.startsWith('!')) body = `^${body.slice(1)}`;
  return { regex: `[${body}]`, end };
}

function globBody(pattern: string): string {
  let regex = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] as string;
    if (char === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      regex += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') regex += '[^/]*';
    else if (char === '?') regex += '[^/]';
    else if (char === '[') {
      const cls = charClass(pattern, i);
      regex += cls.regex;
      i = cls.end;
    } else if (char === '{') {
      const alt = braceAlternatives(pattern, i);
      regex += alt.regex;
      i = alt.end;
    } else regex += SPECIAL.test(char) ? `\\${char}` : char;
  }
  return regex;
}

/**
 * Compiles a glob over `/`-separated relative paths: `*` and `?` stay within one segment, `**`
 * crosses segments (none included), `[...]`/`[!...]` are classes and `{a,b}` alternatives; other
 * characters match themselves. An empty pattern or an unclosed `{` is a BAD_REQUEST. Used by
 * in-process file trees (the sandbox's workdir, a pull request's files); shells have their own.
 */
export function globToRegExp(pattern: string): RegExp {
  if (typeof pattern !== 'string' || pattern.length === 0) {
    throw new AppError('BAD_REQUEST', 'a glob pattern must be a non-empty string');
  }
  const normal = pattern.replace(/^\.\//, '');
  return new RegExp(`^${globBody(normal)}$`);
}

/** True when `path` matches `pattern`; a pattern without `/` is matched against the base name. */
export function matchesGlob(path: string, pattern: string): boolean {
  const subject = pattern.includes('/') ? path : (path.split('/').pop() ?? path);
  return globToRegExp(pattern).test(subject);
}
