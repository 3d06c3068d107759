import type { PGlite } from '@electric-sql/pglite';
import { Mutex } from './mutex.js';
import { PreparedStatements } from './prepared-statements.js';
import { ProtocolSequence } from './protocol-sequence.js';
import { mayChangeSchema, statementTexts } from './schema-change.js';

const MAX_BACKOFF_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The single PGlite backend, shared by our Kysely driver and by pg-wire clients of the socket
 * server. PGlite has one session: whoever holds it owns any open transaction and any unfinished
 * extended-protocol query (its unnamed statement and portal), so both sides take turns. Kysely
 * holds `mutex` for a whole connection lease (a transaction included); the socket server takes it
 * per protocol message, and keeps the backend between messages while its own client has a
 * transaction or an extended-protocol query open, which `acquire` waits out.
 */
export class PgliteSession {
  private readonly mutex = new Mutex();
  private readonly sequence = new ProtocolSequence();
  /** The in-process connections' prepared statements (the socket's clients have their own). */
  readonly statements: PreparedStatements;

  constructor(readonly pglite: PGlite) {
    this.statements = new PreparedStatements(pglite);
  }

  /** Whether a socket client holds the backend between its messages. */
  private heldBySocket(): boolean {
    return this.pglite.isInTransaction() || this.sequence.open;
  }

  /** Takes the backend for an in-process connection: no socket client may be holding it. */
  async acquire(): Promise<() => void> {
    for (let backoff = 1; ; backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)) {
      const release = await this.mutex.acquire();
      if (!this.heldBySocket()) return release;
      release();
      await sleep(backoff);
    }
  }

  /**
   * The PGlite handed to the socket server. Its per-message `runExclusive` and its `exec` (used
   * to roll back a disconnected client's transaction) queue behind in-process connections. Its
   * `isInTransaction` also answers true while a client's extended-protocol query is unfinished:
   * the server's queue then serves only the client that sent the last message (as it does for
   * transactions), so no other client's Parse or Bind lands between that client's messages. A
   * client's statement that may change the schema makes our prepared statements be prepared anew.
   */
  socketFacade(): PGlite {
    const { mutex, pglite, sequence, statements } = this;
    const heldBySocket = () => this.heldBySocket();
    return new Proxy(pglite, {
      get(target, property) {
        if (property === 'runExclusive') {
          return <T>(work: () => Promise<T>) => mutex.runExclusive(() => target.runExclusive(work));
        }
        if (property === 'isInTransaction') return heldBySocket;
        if (property === 'execProtocolRawStream') {
          return async (
            message: Uint8Array,
            options: Parameters<PGlite['execProtocolRawStream']>[1],
          ) => {
            sequence.before(message);
            if (statementTexts(message).some(mayChangeSchema)) statements.forget();
            try {
              return await target.execProtocolRawStream(message, options);
            } finally {
              sequence.after(message);
            }
          };
        }
        if (property === 'exec') {
          // Only called when a client left mid-transaction (its rollback): finish any query it
          // left half-sent first, so the backend takes the rollback and the next client's query.
          return (query: string, options?: Parameters<PGlite['exec']>[1]) =>
            mutex.runExclusive(async () => {
              if (sequence.open) {
                await target.execProtocolRaw(ProtocolSequence.SYNC);
                sequence.reset();
              }
              return target.exec(query, options);
            });
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function'
          ? (value as (...args: unknown[]) => unknown).bind(target)
          : value;
      },
    });
  }
}
