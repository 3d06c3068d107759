import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';
import { mayChangeSchema } from './schema-change.js';
import { WireExchange } from './wire-exchange.js';

const { serialize } = protocol;

/** Statements kept prepared at once; the least recently used one is closed past this. */
export const PREPARED_STATEMENTS_KEPT = 256;

const NO_CLOSES: readonly Uint8Array[] = [];

/** Our statements' names: no pg-wire client of the socket server names its own so. */
const NAME_PREFIX = 'caravel_kysely_';

interface Prepared {
  name: string;
  /** Each parameter's type OID, as the backend inferred it: how its value is serialised. */
  parameterTypes: number[];
  /** When it last ran (a count of runs): the least recent is closed first. */
  lastRun: number;
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
 * run as one wire-protocol exchange (Bind, Describe, Execute, Sync: {@link WireExchange}).
 * PGlite's own `query` parses the text again on every call and crosses into its WebAssembly
 * backend six times (Parse, Describe, Bind, Describe, Execute, Sync): for the ingress's inserts
 * that is about twice the CPU. Values are serialised by the parameter types the backend
 * inferred, as `query` does, and rows parsed by the same parsers, so results are the same.
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
  private runs = 0;
  private readonly wire: WireExchange;

  constructor(
    private readonly pglite: PGlite,
    private readonly kept = PREPARED_STATEMENTS_KEPT,
  ) {
    this.wire = new WireExchange(pglite);
  }

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
      try {
        return await this.run<R>(sql, parameters);
      } catch (again) {
        throw withQuery(again, sql);
      }
    }
  }

  private run<R>(sql: string, parameters: readonly unknown[]): Promise<Results<R>> {
    const statement = this.prepared.get(sql);
    if (!statement) return this.prepare(sql).then(() => this.run<R>(sql, parameters));
    // Stamped, not moved to the end of the map: a map's deletes leave holes it rebuilds for.
    statement.lastRun = ++this.runs;
    const values = new Array<string | null>(parameters.length);
    for (let index = 0; index < parameters.length; index += 1) {
      values[index] = this.serialised(parameters[index], statement.parameterTypes[index]);
    }
    return this.wire.run<R>(this.closes(), statement.name, values);
  }

  private async prepare(sql: string): Promise<void> {
    this.named += 1;
    const name = `${NAME_PREFIX}${this.named}`;
    const messages = await this.exchange([
      serialize.parse({ name, text: sql }),
      serialize.describe({ type: 'S', name }),
    ]);
    const parameterTypes = parse.parseDescribeStatementResults(messages);
    this.prepared.set(sql, { name, parameterTypes, lastRun: ++this.runs });
    if (this.prepared.size > this.kept) this.closeLeastRecent();
  }

  private closeLeastRecent(): void {
    let oldest: [string, Prepared] | undefined;
    for (const entry of this.prepared) {
      if (!oldest || entry[1].lastRun < oldest[1].lastRun) oldest = entry;
    }
    if (!oldest) return;
    this.prepared.delete(oldest[0]);
    this.closing.push(oldest[1].name);
  }

  /**
   * One crossing into the backend: the closes due, `messages`, and a Sync. An error is thrown
   * once the backend has answered them all (the Sync included), so the session is ready again.
   */
  private async exchange(messages: readonly Uint8Array[]) {
    const answers = await this.pglite.execProtocolStream(
      concat([...this.closes(), ...messages, serialize.sync()]),
      { syncToFs: false },
    );
    await this.wire.syncFileSystem();
    return answers;
  }

  /** The Close messages due, taken. */
  private closes(): readonly Uint8Array[] {
    if (this.closing.length === 0) return NO_CLOSES;
    return this.closing.splice(0).map((name) => serialize.close({ type: 'S', name }));
  }

  private serialised(value: unknown, type: number | undefined): string | null {
    if (value === null || value === undefined) return null;
    const serializer = type === undefined ? undefined : this.pglite.serializers[type];
    // As PGlite's `query`: a type without a serialiser takes the value's own text.
    return serializer ? serializer(value) : (value as { toString(): string }).toString();
  }
}
