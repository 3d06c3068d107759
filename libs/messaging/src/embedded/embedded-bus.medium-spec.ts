import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STREAMS } from '@caravel/contracts';
import {
  BusConsumerRepository,
  BusDeliveryRepository,
  BusMessageRepository,
  openDatabase,
  type Database,
} from '@caravel/db';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createTestPostgresDatabase,
  describeEachDatabase,
  serviceGate,
  type TestPostgresDatabase,
} from '@caravel/testing';
import { collect, recording, type SeenDelivery } from '../testing/bus-behaviour-context.js';
import { describeBusBehaviour } from '../testing/bus-behaviour-suite.js';
import { probeMessage, uniqueName, type ProbeData } from '../testing/bus-test-messages.js';
import { eventually, Gate, sleep } from '../testing/eventually.js';
import { createEmbeddedBus, type EmbeddedBus } from './embedded-bus.js';
import { embeddedBusHarness } from './embedded-bus.harness.js';

await describeEachDatabase('embedded bus', openDatabase, (target) => {
  describeBusBehaviour(async () => {
    const database = await target.open();
    return embeddedBusHarness({ label: target.label, database, release: () => database.close() });
  });
});

await describeEachDatabase('embedded consumer registration', openDatabase, (target) => {
  it('says a consumer is idle only with nothing past its cursor and nothing unsettled', async () => {
    const database = await target.open();
    try {
      const consumers = new BusConsumerRepository(database.db);
      const messages = new BusMessageRepository(database.db);
      const deliveries = new BusDeliveryRepository(database.db);
      const stream = uniqueName('S');
      const durable = uniqueName('idle');
      const spec = { stream, durable, filter: 'a.>', ordered: false, config: {} };
      const fill = () =>
        consumers.fill(stream, durable, { subjectRegex: '^a\\.', batch: 10, maxUnsettled: 10 });

      expect(await consumers.register(spec)).toEqual({ idle: true });
      await messages.append({
        stream,
        subject: 'a.one',
        threadId: null,
        messageId: randomUUID(),
        payload: '{}',
      });
      expect(await consumers.register(spec)).toEqual({ idle: false });
      await fill();
      expect(await consumers.register(spec)).toEqual({ idle: false });
      const [claimed] = await deliveries.claim({
        stream,
        durable,
        holder: 'spec',
        limit: 1,
        ackWaitMs: 60_000,
        maxDeliver: 3,
        ordered: false,
      });
      expect(await consumers.register(spec)).toEqual({ idle: false });
      await deliveries.ack({ stream, durable, sequence: claimed!.sequence });
      expect(await consumers.register(spec)).toEqual({ idle: true });
    } finally {
      await database.close();
    }
  });

  it('still delivers what is published right after an idle consumer subscribes, without a poll', async () => {
    const database = await target.open();
    // A poll far longer than the test: only the publish's wake-up can deliver in time.
    const bus = createEmbeddedBus({ database, name: 'idle-start', pollIntervalMs: 3_600_000 });
    try {
      const probe = probeMessage('cmd', 'idle-start');
      const seen: number[] = [];
      await bus.consume(probe, { durable: uniqueName('idle-start') }, (d) => {
        seen.push(d.envelope.data.n);
        return Promise.resolve();
      });
      await bus.publish(probe, probe.create({ threadId: randomUUID(), n: 1 }, { source: 'test' }));
      await eventually(() => expect(seen).toEqual([1]));
    } finally {
      await bus.close();
      await database.close();
    }
  });
});

describe('embedded bus restart on a PGlite data directory', () => {
  let dataDir = '';
  const open: Database[] = [];
  const openAt = async (): Promise<Database> => {
    const database = await openDatabase({ url: `pglite:${dataDir}` });
    open.push(database);
    return database;
  };
  const replica = (database: Database, name: string): EmbeddedBus =>
    createEmbeddedBus({ database, name, pollIntervalMs: 50 });

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'caravel-embedded-bus-'));
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((database) => database.close()));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('redelivers what a crashed process held, not what it acked, and replays the whole log', async () => {
    const probe = probeMessage('cmd', 'restart');
    const durable = uniqueName('restart');
    const threadId = randomUUID();
    const stuck = new Gate();
    const before: SeenDelivery<ProbeData>[] = [];
    const first = await openAt();
    const crashing = replica(first, 'before-crash');
    await crashing.consume(
      probe,
      { durable, ackWaitMs: 1000 },
      recording(before, 'before', async (d) => {
        if (d.envelope.data.n === 0) await stuck.wait(10_000);
      }),
    );
    for (let n = 0; n < 3; n += 1)
      await crashing.publish(probe, probe.create({ threadId, n }, { source: 'test' }));
    await eventually(() => expect(before.map((s) => s.data.n).sort()).toEqual([0, 1, 2]));
    await sleep(200);
    crashing.abandon();
    await first.close();
    stuck.release();

    const after: SeenDelivery<ProbeData>[] = [];
    const restarted = replica(await openAt(), 'after-restart');
    await restarted.consume(probe, { durable, ackWaitMs: 1000 }, recording(after, 'after'));

    await eventually(() => expect(after.map((s) => [s.data.n, s.deliveryCount])).toEqual([[0, 2]]));
    const log = await collect(restarted.replay(STREAMS.COMMANDS, { threadId }));
    expect(log.map((m) => (m.envelope.data as ProbeData).n)).toEqual([0, 1, 2]);
    await sleep(300);
    expect(after).toHaveLength(1);
    await restarted.close();
  });

  it('lets close() finish in-flight handlers and settle them before the process stops', async () => {
    const probe = probeMessage('cmd', 'drain');
    const durable = uniqueName('drain');
    const started = new Gate();
    const finished: number[] = [];
    const bus = replica(await openAt(), 'draining');
    await bus.consume(probe, { durable, ackWaitMs: 1000 }, async (d) => {
      started.release();
      await sleep(300);
      finished.push(d.envelope.data.n);
    });
    await bus.publish(probe, probe.create({ threadId: randomUUID(), n: 7 }, { source: 'test' }));
    await started.wait(10_000);
    await bus.close();
    expect(finished).toEqual([7]);
    await open.splice(0, 1)[0]!.close();

    const again: number[] = [];
    const restarted = replica(await openAt(), 'after-drain');
    await restarted.consume(probe, { durable, ackWaitMs: 1000 }, (d) => {
      again.push(d.envelope.data.n);
      return Promise.resolve();
    });
    await sleep(1500);
    expect(again).toEqual([]);
    await restarted.close();
  });
});

const postgres = await serviceGate(['postgres']);
postgres.describe('embedded bus replicas on one PostgreSQL database', () => {
  let created: TestPostgresDatabase;
  const databases: Database[] = [];
  const buses: EmbeddedBus[] = [];

  beforeAll(async () => {
    created = await createTestPostgresDatabase();
  });
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await Promise.all(databases.map((database) => database.close()));
    await created.drop();
  });

  it('never hands a message to two of four replicas, each with its own connection pool', async () => {
    for (let i = 0; i < 4; i += 1) {
      // Separate pools and no shared in-process hub: the replicas meet only in the database.
      const database = await openDatabase({ url: created.url });
      databases.push(database);
      buses.push(createEmbeddedBus({ database, name: `replica-${i}`, pollIntervalMs: 20 }));
    }
    const probe = probeMessage('cmd', 'replicas');
    const durable = uniqueName('replicas');
    const seen: SeenDelivery<ProbeData>[] = [];
    for (const [i, bus] of buses.entries()) {
      await bus.consume(
        probe,
        { durable, concurrency: 4, ackWaitMs: 30_000 },
        recording(seen, `r${i}`, () => sleep(Math.random() * 5)),
      );
    }
    const total = 500;
    await Promise.all(
      buses.map(async (bus, i) => {
        for (let n = i; n < total; n += buses.length) {
          await bus.publish(probe, probe.create({ threadId: randomUUID(), n }, { source: 'test' }));
        }
      }),
    );

    await eventually(() => expect(seen.length).toBeGreaterThanOrEqual(total), {
      timeoutMs: 45_000,
    });
    await sleep(500);
    expect(seen).toHaveLength(total);
    expect(new Set(seen.map((s) => s.data.n)).size).toBe(total);
    expect(seen.every((s) => s.deliveryCount === 1)).toBe(true);
    expect(new Set(seen.map((s) => s.replica)).size).toBeGreaterThan(1);
  });
});
