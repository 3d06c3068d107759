import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '@caravel/config';
import { ReviewStyleRepository } from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import { deleteJetStreamNamespace } from '@caravel/messaging/testing';
import { strictMock } from '@caravel/testing/doubles';
import {
  openDistributedRuntime,
  openEmbeddedRuntime,
  type PlatformRuntime,
} from '@caravel/platform';
import { createTestPostgresDatabase, serviceGate, testEnvironment } from '@caravel/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AnalyzerConfig } from '../analyzer.config.js';
import { nightlySlot } from '../schedule/nightly-slot.js';
import { NightlyAnalysesService } from './nightly-analyses.service.js';

const REPO = `acme/nightly-${randomBytes(3).toString('hex')}`;
const { hour, minute } = nightlySlot(REPO);
const at = (day: number, h: number, m: number) => new Date(Date.UTC(2026, 11, day, h, m));
const config = { analysis: { nightlyCheckMs: 60_000 } } as AnalyzerConfig;

/** Two replicas of the analyzer on one bus and database, and how to restart one. */
interface Replicas {
  runtimes: PlatformRuntime[];
  close(): Promise<void>;
}

async function embedded(): Promise<Replicas> {
  const dataDir = await mkdtemp(join(tmpdir(), 'analyzer-nightly-'));
  const runtime = await openEmbeddedRuntime({
    name: 'analyzer-a',
    dataDir,
    databaseUrl: 'pglite:memory',
  });
  return {
    runtimes: [runtime, { ...runtime, name: 'analyzer-b' }],
    close: async () => {
      await runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function distributed(): Promise<Replicas> {
  const database = await createTestPostgresDatabase();
  const namespace = `n${randomBytes(5).toString('hex')}`;
  const open = (name: string) =>
    openDistributedRuntime({
      name,
      natsUrl: testEnvironment.TEST_NATS_URL,
      databaseUrl: database.url,
      busNamespace: namespace,
    });
  const runtimes = [await open('analyzer-a'), await open('analyzer-b')];
  return {
    runtimes,
    close: async () => {
      for (const runtime of runtimes) await runtime.close();
      await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
      await database.drop();
    },
  };
}

function suite(name: string, start: () => Promise<Replicas>): void {
  describe(`the nightly schedule [${name}]`, () => {
    let replicas: Replicas;
    let now = at(1, 0, 0);
    const clock: Clock = { now: () => now };
    const published: unknown[] = [];
    /** A (re)started replica: a new service on replica `i`'s bus, publishes recorded. */
    const replica = (i: number) => {
      const runtime = replicas.runtimes[i]!;
      const bus = strictMock<Bus>({
        leases: runtime.bus.leases,
        publish: (_definition, envelope) => {
          published.push(envelope);
          return Promise.resolve({ stream: 'TEST', sequence: published.length, duplicate: false });
        },
      });
      const styles = new ReviewStyleRepository(runtime.database.db);
      return new NightlyAnalysesService(styles, bus, runtime, clock, config);
    };

    beforeAll(async () => {
      replicas = await start();
      await new ReviewStyleRepository(replicas.runtimes[0]!.database.db).save(
        {
          repository: REPO,
          mode: 'bootstrap',
          threadId: randomUUID(),
          prompt: 'p',
          summary: 's',
          wordCount: 1,
          model: 'scripted:x',
          pullRequests: [],
          commentIds: [],
          reviewers: [],
          counts: { pullRequests: 0, comments: 0, reviewers: 0 },
        },
        at(1, 0, 0),
      );
    }, 60_000);

    afterAll(() => replicas?.close());

    it('asks once a night on the real lease store, across replicas checking at once and restarts', async () => {
      now = at(2, hour, minute);
      const both = await Promise.all([replica(0).sweep(), replica(1).sweep()]);
      expect(published).toHaveLength(1);
      expect(both.flatMap((asked) => asked ?? [])).toEqual([REPO]);
      now = at(2, hour, minute + 5);
      expect(await replica(0).sweep()).toEqual([]);
      expect(await replica(1).sweep()).toEqual([]);
      expect(published).toHaveLength(1);
      now = at(3, hour, minute);
      expect(await replica(1).sweep()).toEqual([REPO]);
      expect(published).toHaveLength(2);
    });
  });
}

suite('embedded bus + PGlite', embedded);
const services = await serviceGate(['nats', 'postgres']);
if (services.missing)
  services.describe('the nightly schedule [NATS + PostgreSQL]', () => undefined);
else suite('NATS + PostgreSQL', distributed);
