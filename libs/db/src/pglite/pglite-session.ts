import type { PGlite } from '@electric-sql/pglite';
import { Mutex } from './mutex.js';

const MAX_BACKOFF_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The single PGlite backend, shared by our Kysely driver and by pg-wire clients of the socket
 * server. PGlite has one session: whoever holds it owns any open transaction, so both sides must
 * take turns. Kysely holds `mutex` for a whole connection lease (a transaction included); the
 * socket server takes it per protocol message, and keeps the backend between messages while its
 * own client has a transaction open, which `acquire` waits out.
 */
export class PgliteSession {
  private readonly mutex = new Mutex();

  constructor(readonly pglite: PGlite) {}

  /** Takes the backend for an in-process connection: no socket transaction may be open. */
  async acquire(): Promise<() => void> {
    for (let backoff = 1; ; backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)) {
      const release = await this.mutex.acquire();
      if (!this.pglite.isInTransaction()) return release;
      release();
      await sleep(backoff);
    }
  }

  /**
   * The PGlite handed to the socket server: its per-message `runExclusive` and its `exec` (used
   * to roll back a disconnected client's transaction) queue behind in-process connections.
   */
  socketFacade(): PGlite {
    const { mutex, pglite } = this;
    return new Proxy(pglite, {
      get(target, property) {
        if (property === 'runExclusive') {
          return <T>(work: () => Promise<T>) => mutex.runExclusive(() => target.runExclusive(work));
        }
        if (property === 'exec') {
          return (query: string, options?: Parameters<PGlite['exec']>[1]) =>
            mutex.runExclusive(() => target.exec(query, options));
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function'
          ? (value as (...args: unknown[]) => unknown).bind(target)
          : value;
      },
    });
  }
}
