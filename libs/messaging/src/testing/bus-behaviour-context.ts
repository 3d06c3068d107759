import { STREAMS } from '@caravel/contracts';
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import type { Bus, Delivery, DeliveryHandler } from '../bus.port.js';
import type { BusHarnessFactory, BusTestHarness } from './bus-harness.js';
import { Gate } from './eventually.js';

/** One delivery as a behaviour test saw it. */
export interface SeenDelivery<T> {
  replica: string;
  id: string;
  data: T;
  deliveryCount: number;
  at: number;
}

/**
 * Per-file state shared by the behaviour sections: one harness for the file, replicas and gates
 * per test, all released and closed after each test so a failing test cannot wedge the next.
 */
export class BehaviourContext {
  private current: BusTestHarness | null = null;
  private open: Bus[] = [];
  private killed = new Set<Bus>();
  private gates: Gate[] = [];

  constructor(private readonly factory: BusHarnessFactory) {}

  /** Registers the lifecycle hooks; call once inside the suite's `describe`. */
  install(): void {
    beforeAll(async () => {
      this.current = await this.factory();
      const setup = await this.current.replica('setup');
      await setup.ensureStreams(Object.values(STREAMS));
      await setup.close();
    });
    afterEach(async () => {
      for (const gate of this.gates.splice(0)) gate.release();
      const buses = this.open.splice(0).filter((bus) => !this.killed.has(bus));
      await Promise.all(buses.map((bus) => bus.close()));
    });
    afterAll(async () => {
      await this.current?.dispose();
    });
  }

  get harness(): BusTestHarness {
    if (!this.current) throw new Error('the bus harness failed to start (see beforeAll)');
    return this.current;
  }

  /** A replica closed after the test. */
  async replica(name: string): Promise<Bus> {
    const bus = await this.harness.replica(name);
    this.open.push(bus);
    return bus;
  }

  async replicas(count: number, prefix = 'replica'): Promise<Bus[]> {
    const buses: Bus[] = [];
    for (let i = 0; i < count; i += 1) buses.push(await this.replica(`${prefix}-${i}`));
    return buses;
  }

  async kill(bus: Bus): Promise<void> {
    this.killed.add(bus);
    await this.harness.kill(bus);
  }

  /** A gate released automatically after the test. */
  gate(): Gate {
    const gate = new Gate();
    this.gates.push(gate);
    return gate;
  }
}

/** A handler that records each delivery under `replica` before running `body`. */
export function recording<T>(
  seen: SeenDelivery<T>[],
  replica: string,
  body: (delivery: Delivery<T>) => Promise<void> = async () => undefined,
): DeliveryHandler<T> {
  return async (delivery) => {
    seen.push({
      replica,
      id: delivery.envelope.id,
      data: delivery.envelope.data,
      deliveryCount: delivery.deliveryCount,
      at: Date.now(),
    });
    await body(delivery);
  };
}

/** Collects an async iterable (replay) into an array. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}
