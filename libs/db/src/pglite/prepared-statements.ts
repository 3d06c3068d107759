import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import { mayChangeSchema } from './schema-change.js';

const { serialize } = protocol;

/** Statements kept prepared at once; the least recently used one is closed past this. */
export const PREPARED_STATEMENTS_KEPT = 256;

/** Our statements' names: no pg-wire client of the socket server names its own so. */
const NAME_PREFIX = 'caravel_kysely_';

interface Prepared {
  name: string;
  /** Each parameter's type OID, as the backend inferred it: how its value is serialised. */
  parameterTypes: number[];
}

/** An error the backend raised about a statement, as PGlite's `query` reports it. */
interface StatementError extends Error {
  code?: string;
  query?: string;
}

/**
 * A plan gone stale under a schema change that went unnoticed (DDL run from a function), or a
 * statement dropped behind our back: prepared again and run once more, outside a transaction.
 */
function isStalePreparedStatement(error: unknown): boolean {
  const { code, message } = error as StatementError;
  return (
    code === '26000' ||
    (code === '0A000' && /cached plan must not change result type/.test(message ?? ''))
  );
}

/** The backend's error with the statement's SQL on it (its values are left out: secrets). */
function withQuery(error: unknown, sql: string): StatementError {
  return Object.assign(error as StatementError, { query: sql });
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

/**
 * Parameterised statements on PGlite, each parsed once as a named prepared statement and then
 * run as one wire-protocol exchange (Bind, Describe, Execute, Sync). PGlite's own `query` parses
 * the text again on every call and crosses into its WebAssembly backend six times (Parse,
 * Describe, Bind, Describe, Execute, Sync): for the ingress's inserts that is about twice the
 * CPU. Values are serialised by the parameter types the backend inferred, as `query` does, and
 * rows parsed by the same parsers, so results are the same.
 *
 * A cached plan is only valid while the schema it was planned against stands: every statement
 * that may change it ({@link mayChangeSchema}), whether run through our driver or by a client of
 * the pg-wire socket, makes the cache {@link forget} its statements.
 */
export class PreparedStatements {
  private readonly prepared = new Map<string, Prepared>();
  /** Statements forgotten or evicted, closed with the next exchange. */
  private readonly closing: string[] = [];
  private named = 0;

  constructor(
    private readonly pglite: PGlite,
    private readonly kept = PREPARED_STATEMENTS_KEPT,
  ) {}

  /** Drops every cached statement: the next call of each prepares it again. */
  forget(): void {
    for (const statement of this.prepared.values()) this.closing.push(statement.name);
    this.prepared.clear();
  }

  /** Called with each statement run without this cache (a simple query). */
  ranElsewhere(sql: string): void {
    if (mayChangeSchema(sql)) this.forget();
  }

  /** Runs `sql` with `parameters`; the caller holds the session. */
  async query<R>(sql: string, parameters: readonly unknown[]): Promise<Results<R>> {
    try {
      return await this.run<R>(sql, parameters);
    } catch (error) {
      if (!isStalePreparedStatement(error) || this.pglite.isInTransaction()) {
        throw withQuery(error, sql);
      }
      this.forget();
      return this.run<R>(sql, parameters).catch((again: unknown) => {
        throw withQuery(again, sql);
      });
    }
  }

  private async run<R>(sql: string, parameters: readonly unknown[]): Promise<Results<R>> {
    const statement = this.prepared.get(sql) ?? (await this.prepare(sql));
    // Least recently used first: a hit moves to the end.
    this.prepared.delete(sql);
    this.prepared.set(sql, statement);
    const values = parameters.map((value, index) =>
      this.serialised(value, statement.parameterTypes[index]),
    );
    const messages = await this.exchange([
      serialize.bind({ statement: statement.name, values }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
    ]);
    return parse.parseResults(messages, this.pglite.parsers, {
      rowMode: 'object',
    })[0] as Results<R>;
  }

  private async prepare(sql: string): Promise<Prepared> {
    this.named += 1;
    const name = `${NAME_PREFIX}${this.named}`;
    const messages = await this.exchange([
      serialize.parse({ name, text: sql }),
      serialize.describe({ type: 'S', name }),
    ]);
    const statement = { name, parameterTypes: parse.parseDescribeStatementResults(messages) };
    this.prepared.set(sql, statement);
    if (this.prepared.size > this.kept) {
      const [oldest] = this.prepared;
      if (oldest) {
        this.prepared.delete(oldest[0]);
        this.closing.push(oldest[1].name);
      }
    }
    return statement;
  }

  /**
   * One crossing into the backend: the closes due, `messages`, and a Sync. An error is thrown
   * once the backend has answered them all (the Sync included), so the session is ready again.
   */
  private async exchange(messages: readonly Uint8Array[]) {
    const closes = this.closing.splice(0).map((name) => serialize.close({ type: 'S', name }));
    const answers = await this.pglite.execProtocolStream(
      concat([...closes, ...messages, serialize.sync()]),
      { syncToFs: false },
    );
    // As PGlite's `query`: the file system is synced after a statement outside a transaction.
    if (!this.pglite.isInTransaction()) await this.pglite.syncToFs();
    return answers;
  }

  private serialised(value: unknown, type: number | undefined): string | null {
    if (value === null || value === undefined) return null;
    const serializer = type === undefined ? undefined : this.pglite.serializers[type];
    // As PGlite's `query`: a type without a serialiser takes the value's own text.
    return serializer ? serializer(value) : (value as { toString(): string }).toString();
  }
}
