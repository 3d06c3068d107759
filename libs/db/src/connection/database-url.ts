import { isAbsolute, resolve } from 'node:path';
import { AppError } from '@caravel/errors';

/** Where a database lives, parsed from its URL. */
export type DatabaseLocation =
  | {
      readonly kind: 'postgres';
      readonly url: string;
      readonly host: string;
      readonly port: number;
      readonly database: string;
    }
  | { readonly kind: 'pglite'; readonly dataDir: string | null };

const PGLITE_PREFIX = 'pglite:';

/**
 * Parses `postgres://…` / `postgresql://…`, `pglite:memory` (in-memory) and `pglite:<dir>`
 * (a data directory, relative to `cwd` unless absolute).
 */
export function parseDatabaseUrl(url: string, cwd: string = process.cwd()): DatabaseLocation {
  const trimmed = url.trim();
  if (trimmed.startsWith(PGLITE_PREFIX))
    return parsePglite(trimmed.slice(PGLITE_PREFIX.length), cwd);
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return parsePostgres(trimmed);
  throw new AppError(
    'CONFIG_INVALID',
    `Unsupported database URL ${JSON.stringify(redactUrl(trimmed))}: use postgres://user@host:port/db, pglite:memory or pglite:<dir>`,
  );
}

function parsePglite(rest: string, cwd: string): DatabaseLocation {
  if (rest === 'memory') return { kind: 'pglite', dataDir: null };
  const dir = rest.startsWith('//') ? rest.slice(2) : rest;
  if (dir === '') {
    throw new AppError(
      'CONFIG_INVALID',
      'pglite: needs `memory` or a data directory, e.g. pglite:.caravel/pgdata',
    );
  }
  return { kind: 'pglite', dataDir: isAbsolute(dir) ? dir : resolve(cwd, dir) };
}

function parsePostgres(url: string): DatabaseLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new AppError(
      'CONFIG_INVALID',
      `Malformed PostgreSQL URL ${JSON.stringify(redactUrl(url))}`,
      { cause },
    );
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres';
  return {
    kind: 'postgres',
    url,
    host: parsed.hostname || '127.0.0.1',
    port: Number(parsed.port || 5432),
    database,
  };
}

/** The URL with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@/]*@/, '$1***@');
}
