import { AppError } from '@caravel/errors';

/**
 * NATS subject filters for the embedded bus: `*` stands for exactly one token, `>` (last token
 * only) for one or more remaining tokens. The same rules serve the SQL side (a regular
 * expression bound as a parameter) and the in-process side (request/reply routing).
 */

const REGEX_SPECIAL = /[\\^$.|?*+()[\]{}]/g;

/** Splits a filter into tokens, rejecting empty tokens and a `>` that is not last. */
export function filterTokens(filter: string): string[] {
  const tokens = filter.split('.');
  tokens.forEach((token, index) => {
    if (token === '') {
      throw new AppError('BAD_REQUEST', `subject filter '${filter}' has an empty token`);
    }
    if (token === '>' && index !== tokens.length - 1) {
      throw new AppError('BAD_REQUEST', `subject filter '${filter}' has '>' before its last token`);
    }
    if (token !== '*' && token !== '>' && /[*>\s]/.test(token)) {
      throw new AppError(
        'BAD_REQUEST',
        `subject filter '${filter}' has a malformed token '${token}'`,
      );
    }
  });
  return tokens;
}

/**
 * A POSIX regular expression (PostgreSQL `~` syntax, also valid in JavaScript) that matches
 * exactly the subjects the filter selects. Literal tokens are escaped, so no filter can inject
 * regular-expression syntax.
 */
export function filterToRegex(filter: string): string {
  const parts = filterTokens(filter).map((token) => {
    if (token === '*') return '[^.]+';
    if (token === '>') return '[^.]+(\\.[^.]+)*';
    return token.replace(REGEX_SPECIAL, '\\$&');
  });
  return `^${parts.join('\\.')}$`;
}

/** Whether a concrete subject falls under a filter, token by token. */
export function subjectMatches(filter: string, subject: string): boolean {
  const pattern = filterTokens(filter);
  const tokens = subject.split('.');
  for (let i = 0; i < pattern.length; i += 1) {
    const want = pattern[i];
    const got = tokens[i];
    if (want === '>') return got !== undefined && got !== '';
    if (got === undefined || got === '') return false;
    if (want !== '*' && want !== got) return false;
  }
  return tokens.length === pattern.length;
}

/** Whether a filter has no wildcard, i.e. names one subject. */
export function isLiteralSubject(filter: string): boolean {
  return filterTokens(filter).every((token) => token !== '*' && token !== '>');
}
