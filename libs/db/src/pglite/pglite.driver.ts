import type { PGlite, Results } from '@electric-sql/pglite';
import {
  CompiledQuery,
  isCompilable,
  Kysely,
  type Compilable,
  type DatabaseConnection,
  type Driver,
  type KyselyConfig,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { PgliteSession } from './pglite-session.js';
import type { PreparedStatements } from './prepared-statements.js';

// As Kysely's PostgresDriver does with pg's command tag.
const ROW_COMMANDS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

const quoteIdentifier = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** What Kysely expects of a driver's result. */
function queryResultOf<R>(result: Results<R>): QueryResult<R> {
  if (result.command && ROW_COMMANDS.has(result.command.toUpperCase())) {
    return { rows: result.rows, numAffectedRows: BigInt(result.affectedRows ?? 0) };
  }
  return { rows: result.rows };
}

/** One lease of the PGlite backend, as Kysely sees a connection. */
class PgliteConnection implements DatabaseConnection {
  constructor(
    private readonly pglite: PGlite,
    private readonly statements: PreparedStatements,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return queryResultOf(await this.run<R>(compiled));
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
  run<R>(compiled: CompiledQuery): Promise<Results<R>> {
    if (compiled.parameters.length === 0) return this.simple<R>(compiled.sql);
    return this.statements.query<R>(compiled.sql, compiled.parameters);
  }

  private async simple<R>(text: string): Promise<Results<R>> {
    this.statements.ranElsewhere(text);
    const results = await this.pglite.exec(text, { rowMode: 'object' });
    const last = results[results.length - 1];
    return (last ?? { rows: [], fields: [], affectedRows: 0 }) as Results<R>;
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

  private destroyed = false;

  async init(): Promise<void> {
    await this.session.pglite.waitReady;
  }

  /**
   * Runs one compiled statement on the session, outside any transaction: what Kysely's executor
   * does for it when there are no plugins and no query log (take the connection, run, give it
   * back), without its layers of promises (see {@link PgliteKysely}).
   */
  async executeAlone<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // As Kysely's own driver wrapper answers once the database is destroyed.
    if (this.destroyed) throw new Error('driver has already been destroyed');
    const release = await this.session.acquire();
    try {
      return queryResultOf(await this.connection.run<R>(compiled));
    } finally {
      release();
    }
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
    this.destroyed = true;
    await this.onDestroy();
  }
}

/**
 * Kysely on PGlite, whose `executeQuery` (a query compiled beforehand, as the group-committed
 * inserts of every webhook delivery run) goes straight to {@link PgliteDriver.executeAlone}.
 * Kysely's executor, connection provider and driver wrapper each add an async layer: ~3 KiB of
 * garbage a statement, on the ingress's hot path. Only this root instance takes the shortcut: it
 * has no plugins and no query log; a transaction, or one made by `withPlugin` and the like, is a
 * plain Kysely and runs everything the usual way.
 */
export class PgliteKysely<DB> extends Kysely<DB> {
  constructor(
    config: KyselyConfig,
    private readonly direct: PgliteDriver,
  ) {
    super(config);
  }

  override executeQuery<R>(query: CompiledQuery<R> | Compilable<R>): Promise<QueryResult<R>> {
    return this.direct.executeAlone<R>(isCompilable(query) ? query.compile() : query);
  }
}
