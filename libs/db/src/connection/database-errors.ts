import { AppError } from '@caravel/errors';

const UNIQUE_VIOLATION = '23505';

function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** True when a database error (from pg or PGlite, or its cause) is a unique-key violation. */
export function isUniqueViolation(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (sqlState(current) === UNIQUE_VIOLATION) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Runs `work`, turning a unique violation into `AppError('DUPLICATE', message)`. */
export async function duplicateAs<T>(message: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('DUPLICATE', message, { cause: error });
    throw error;
  }
}

const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * True when PostgreSQL refused the statement to this connection's role (`42501`): a service on
 * its own role (`caravel db grants`) reached a table its grants do not name.
 */
export function isInsufficientPrivilege(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (sqlState(current) === INSUFFICIENT_PRIVILEGE) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

// Failures that mean "the server is not there / not usable", as opposed to a bad query.
const UNAVAILABLE_SYSCALL_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
  'EPIPE',
]);
// 08xxx connection exceptions, the server shutting down (57P01-57P03), no such database,
// authentication refused, too many connections.
const UNAVAILABLE_SQL_STATES = new Set([
  '3D000',
  '28000',
  '28P01',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|Connection terminated|not queryable/i;

function isUnavailable(error: unknown): boolean {
  const code = sqlState(error);
  if (code && (UNAVAILABLE_SYSCALL_CODES.has(code) || UNAVAILABLE_SQL_STATES.has(code)))
    return true;
  if (code?.startsWith('08')) return true;
  const message = error instanceof Error ? error.message : '';
  return UNAVAILABLE_MESSAGE.test(message);
}

/**
 * True for errors raised because the server cannot be used (refused, unknown host, timeout,
 * connection lost, shutting down, no such database...), whether thrown as is or as the cause of
 * a wrapping error.
 */
export function isConnectionFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (isUnavailable(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The one clear error for a PostgreSQL server that cannot be used at start. */
export function postgresUnavailable(
  host: string,
  port: number,
  database: string,
  cause: unknown,
): AppError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new AppError(
    'DEPENDENCY_UNAVAILABLE',
    `PostgreSQL is not usable at ${host}:${port} (database "${database}"): ${reason}. ` +
      'Start it with `pg_ctlcluster 15 main start`, or set DATABASE_URL to a reachable server ' +
      '(or to pglite:<dir> for the embedded database).',
    { cause, details: { host, port, database } },
  );
}
