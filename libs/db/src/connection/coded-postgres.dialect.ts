import { AppError } from '@caravel/errors';
import {
  PostgresDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { isConnectionFailure, isInsufficientPrivilege } from './database-errors.js';

/**
 * A PostgreSQL failure that means "the server is not there" as the coded, retryable
 * `DEPENDENCY_UNAVAILABLE` (an HTTP caller gets 503 with `Retry-After`, a bus handler a nak); a
 * statement refused to the role (`42501`) as `CONFIG_INVALID` naming the cure, so a grant the
 * role lacks is said at once rather than retried quietly until a dead letter; every other error
 * as it was thrown. The message names the failure, never the address.
 */
export function asDependencyError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (isInsufficientPrivilege(error)) {
    return new AppError(
      'CONFIG_INVALID',
      `PostgreSQL refused this service's database role: ${(error as Error).message}. Its grants ` +
        "lack what this build uses: run `caravel db grants --apply` with the owner's DATABASE_URL " +
        '(after each upgrade; docs/db.md, "Roles"), then replay what was dead-lettered.',
      { cause: error },
    );
  }
  if (!isConnectionFailure(error)) return error;
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' ? code : (error as Error).message;
  return new AppError('DEPENDENCY_UNAVAILABLE', `PostgreSQL is unavailable (${reason})`, {
    cause: error,
  });
}

async function coded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asDependencyError(error);
  }
}

class CodedConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return coded(() => this.inner.executeQuery<R>(query));
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number) {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } catch (error) {
      throw asDependencyError(error);
    }
  }
}

const innerOf = (connection: DatabaseConnection): DatabaseConnection =>
  connection instanceof CodedConnection ? connection.inner : connection;

type Compile = QueryCompiler['compileQuery'];

/** Delegates to Kysely's PostgreSQL driver, coding its connection failures. */
class CodedDriver implements Driver {
  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return coded(() => this.inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new CodedConnection(await coded(() => this.inner.acquireConnection()));
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return coded(() => this.inner.beginTransaction(innerOf(connection), settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return coded(() => this.inner.commitTransaction(innerOf(connection)));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return coded(() => this.inner.rollbackTransaction(innerOf(connection)));
  }

  savepoint(connection: DatabaseConnection, name: string, compile: Compile): Promise<void> {
    return coded(async () => this.inner.savepoint?.(innerOf(connection), name, compile));
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Compile) {
    return coded(async () => this.inner.rollbackToSavepoint?.(innerOf(connection), name, compile));
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: Compile) {
    return coded(async () => this.inner.releaseSavepoint?.(innerOf(connection), name, compile));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(innerOf(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * Kysely's PostgreSQL dialect whose connection failures (refused, reset, terminated, the server
 * shutting down) surface as `AppError('DEPENDENCY_UNAVAILABLE')` from every query, so callers map
 * an outage by its code instead of each catching pg's errors.
 */
export class CodedPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new CodedDriver(super.createDriver());
  }
}
