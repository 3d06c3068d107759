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

  announce(stream: string): void {
    this.published.emit(stream);
  }

  /** A delivery of `durable` was settled here: its other local replicas may claim what waited. */
  announceSettled(stream: string, durable: string): void {
    this.published.emit(`${stream}\u0000${durable}`);
  }

  /** Calls `listener` after each local settlement of `durable`'s deliveries; returns the unsubscribe. */
  onSettled(stream: string, durable: string, listener: () => void): () => void {
    return this.onPublish(`${stream}\u0000${durable}`, listener);
  }

  /** Calls `listener` after each local publish to `stream`; returns the unsubscribe. */
  onPublish(stream: string, listener: () => void): () => void {
    this.published.on(stream, listener);
    return () => {
      this.published.off(stream, listener);
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
