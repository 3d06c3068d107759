import type { Bus } from '../bus.port.js';

/**
 * What the shared bus behaviour suite needs from an adapter. Every harness gets a fresh, isolated
 * namespace (JetStream: prefixed streams and subjects; embedded: a fresh database) so test files
 * can run side by side against the same NATS and PostgreSQL.
 */
export interface BusTestHarness {
  readonly label: string;
  /** A new bus instance (a "replica") on the same backing store as the harness's other replicas. */
  replica(name?: string): Promise<Bus>;
  /** Simulates a crashed process: drops the replica without draining or settling anything. */
  kill(bus: Bus): Promise<void>;
  /** Frees the namespace (streams, database) and closes every replica still open. */
  dispose(): Promise<void>;
}

export type BusHarnessFactory = () => Promise<BusTestHarness>;
