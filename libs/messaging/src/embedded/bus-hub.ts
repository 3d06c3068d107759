import { EventEmitter } from 'node:events';
import { RequestRegistry } from './request-registry.js';

/**
 * What the embedded buses of one process share when they sit on the same database and
 * namespace: publish and settlement notifications (so a local publish or settlement wakes every
 * local consumer it concerns at once, without waiting for a poll) and the request/reply registry.
 */
export class BusHub {
  readonly requests = new RequestRegistry();
  private readonly published = new EventEmitter();

  constructor() {
    // Every consumer of every replica listens; the default cap of 10 is a leak heuristic only.
    this.published.setMaxListeners(0);
  }

  /** A message on `subject` was stored on `stream` here. */
  announce(stream: string, subject: string): void {
    this.published.emit(stream, subject);
  }

  /** A delivery of `durable` was settled here: its other local replicas may claim what waited. */
  announceSettled(stream: string, durable: string): void {
    this.published.emit(`${stream}\u0000${durable}`);
  }

  /** Calls `listener` after each local settlement of `durable`'s deliveries; returns the unsubscribe. */
  onSettled(stream: string, durable: string, listener: () => void): () => void {
    return this.listen(`${stream}\u0000${durable}`, listener);
  }

  /**
   * Calls `listener` with the subject after each local publish to `stream`; returns the
   * unsubscribe. A consumer wakes only for subjects its filter takes: most consumers of a stream
   * want a few of its message types, and a wasted pull is a database transaction.
   */
  onPublish(stream: string, listener: (subject: string) => void): () => void {
    return this.listen(stream, listener);
  }

  private listen<A extends unknown[]>(event: string, listener: (...args: A) => void): () => void {
    const handler = listener as (...args: unknown[]) => void;
    this.published.on(event, handler);
    return () => {
      this.published.off(event, handler);
    };
  }
}

const hubs = new WeakMap<object, Map<string, BusHub>>();

/** The hub for a database object and namespace, created on first use. */
export function hubFor(database: object, namespace: string): BusHub {
  let byNamespace = hubs.get(database);
  if (!byNamespace) {
    byNamespace = new Map();
    hubs.set(database, byNamespace);
  }
  let hub = byNamespace.get(namespace);
  if (!hub) {
    hub = new BusHub();
    byNamespace.set(namespace, hub);
  }
  return hub;
}
