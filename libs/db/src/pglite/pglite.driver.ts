import type { PGlite, Results } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { PgliteSession } from './pglite-session.js';
import type { PreparedStatements } from './prepared-statements.js';

// As Kysely's PostgresDriver does with pg's command tag.
const ROW_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

const quoteIdentifier = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** One lease of the PGlite backend, as Kysely sees a connection. */
class PgliteConnection implements DatabaseConnection {
  constructor(
    private readonly pglite: PGlite,
    private readonly statements: PreparedStatements,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.run<R>(compiled);
    if (result.command && ROW_COMMANDS.has(result.command.toUpperCase())) {
      return { rows: result.rows, numAffectedRows: BigInt(result.affectedRows ?? 0) };
    }
    return { rows: result.rows };
  }

  async *streamQuery<R>(
    compiled: CompiledQuery,
    chunkSize = 100,
  ): AsyncIterableIterator<QueryResult<R>> {
    const { rows } = await this.run<R>(compiled);
    for (let start = 0; start < rows.length; start += chunkSize) {
      yield { rows: rows.slice(start, start + chunkSize) };
    }
  }

  // Like pg, a statement without parameters goes through the simple protocol, so a migration
  // script with several statements runs as one query on both drivers; one with parameters is a
  // prepared statement, parsed once.
  private async run<R>(compiled: CompiledQuery): Promise<Results<R>> {
    if (compiled.parameters.length === 0) {
      this.statements.ranElsewhere(compiled.sql);
      const results = await this.pglite.exec(compiled.sql, { rowMode: 'object' });
      const last = results[results.length - 1];
      return (last ?? { rows: [], fields: [], affectedRows: 0 }) as Results<R>;
    }
    return this.statements.query<R>(compiled.sql, compiled.parameters);
  }
}

/**
 * A Kysely driver over one PGlite instance. There is a single backend session, so there is a
 * single connection: acquiring it waits for the previous holder, and a transaction keeps it.
 */
export class PgliteDriver implements Driver {
  /** The one connection, lent to one holder at a time (the session's lock decides who). */
  private readonly connection: PgliteConnection;
  /** Gives the session back; set while the connection is lent. */
  private release: (() => void) | null = null;

  constructor(
    private readonly session: PgliteSession,
    private readonly onDestroy: () => Promise<void>,
  ) {
    this.connection = new PgliteConnection(session.pglite, session.statements);
  }

  async init(): Promise<void> {
    await this.session.pglite.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    this.release = await this.session.acquire();
    return this.connection;
  }

  releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = null;
    release?.();
    return Promise.resolve();
  }

  async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const modes = [
      settings.isolationLevel ? `isolation level ${settings.isolationLevel}` : '',
      settings.accessMode ?? '',
    ].filter(Boolean);
    await connection.executeQuery(CompiledQuery.raw(['begin', ...modes].join(' ')));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdentifier(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(
      CompiledQuery.raw(`rollback to savepoint ${quoteIdentifier(name)}`),
    );
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdentifier(name)}`));
  }

  async destroy(): Promise<void> {
    await this.onDestroy();
  }
}
