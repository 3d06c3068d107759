import { randomUUID } from 'node:crypto';
import type { Database } from '@caravel/db';
import type { Bus } from '../bus.port.js';
import { silentLogger } from '../settlement/index.js';
import type { BusTestHarness } from '../testing/bus-harness.js';
import { createEmbeddedBus, EmbeddedBus } from './embedded-bus.js';

/** A fresh database for one harness, and how to give it back. */
export interface EmbeddedHarnessTarget {
  label: string;
  database: Database;
  release(): Promise<void>;
}

/**
 * The behaviour-suite harness for the embedded bus: every replica is an {@link EmbeddedBus} on
 * the target's database (a fresh one per harness) under one random namespace, with the default
 * idle poll, so backoff, ack deadlines and ordering are observed through wake-ups and timers.
 */
export function embeddedBusHarness(target: EmbeddedHarnessTarget): BusTestHarness {
  const namespace = `t${randomUUID().slice(0, 8)}`;
  const open = new Set<EmbeddedBus>();
  return {
    label: target.label,
    replica(name = 'replica') {
      const bus = createEmbeddedBus({
        database: target.database,
        name,
        namespace,
        logger: silentLogger,
        // The default poll (a minute on PGlite): timers and wake-ups alone must carry the suite.
      });
      open.add(bus);
      return Promise.resolve(bus);
    },
    kill(bus: Bus) {
      if (!(bus instanceof EmbeddedBus)) {
        return Promise.reject(new Error('the embedded harness can only kill its own replicas'));
      }
      open.delete(bus);
      bus.abandon();
      return Promise.resolve();
    },
    async dispose() {
      const replicas = [...open];
      open.clear();
      await Promise.all(replicas.map((bus) => bus.close()));
      await target.release();
    },
  };
}
