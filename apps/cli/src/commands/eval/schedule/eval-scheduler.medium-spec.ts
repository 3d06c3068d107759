import { EvalScheduleRepository } from '@caravel/db';
import { deleteJetStreamNamespace } from '@caravel/messaging/testing';
import { openDistributedRuntime, type PlatformRuntime } from '@caravel/platform';
import {
  createTestPostgresDatabase,
  serviceGate,
  testEnvironment,
  type TestPostgresDatabase,
} from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordingIo } from '../../../testing/recording-io.js';
import { runCli } from '../../cli.js';
import { latestNight } from './schedule-night.js';

const gate = await serviceGate(['postgres', 'nats']);

gate.describe('caravel eval scheduler --once on NATS and PostgreSQL', () => {
  const namespace = `n${randomBytes(5).toString('hex')}`;
  let database: TestPostgresDatabase;
  let runtime: PlatformRuntime;
  let dir: string;
  let env: Record<string, string>;
  let scheduleId: string;

  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    dir = await mkdtemp(join(tmpdir(), 'caravel-eval-scheduler-'));
    // The test's own view of the deployment: the schedule's row and the sweep's lease.
    runtime = await openDistributedRuntime({
      name: 'eval-scheduler-spec',
      natsUrl: testEnvironment.TEST_NATS_URL,
      databaseUrl: database.url,
      busNamespace: namespace,
    });
    env = {
      NATS_URL: testEnvironment.TEST_NATS_URL,
      DATABASE_URL: database.url,
      BUS_NAMESPACE: namespace,
      EVAL_SCHEDULE_DIR: join(dir, 'evals'),
      LOG_LEVEL: 'warn',
    };
    scheduleId = randomUUID();
    // Registered two days ago at 00:00 UTC: last night is due.
    await new EvalScheduleRepository(runtime.database.db).register({
      id: scheduleId,
      name: 'nightly-review',
      kind: 'review',
      source: join(dir, 'no-such-set'),
      config: 'current',
      model: 'scripted:review.yaml',
      settings: {},
      attempts: 1,
      hour: 0,
      createdBy: 'admin',
      createdAt: new Date(Date.now() - 2 * 86_400_000),
    });
  });

  afterAll(async () => {
    await runtime?.close();
    await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the due night, keeps its failure on the schedule and exits 1', async () => {
    const io = recordingIo();
    await expect(runCli(['eval', 'scheduler', '--once'], env, io)).resolves.toBe(1);
    expect(io.written.join('')).toContain('failed nightly-review');
    const row = await new EvalScheduleRepository(runtime.database.db).find(scheduleId);
    expect(row?.failedSlot?.toISOString()).toBe(latestNight(0, new Date()).toISOString());
    expect(row?.lastError).toContain('no-such-set');
  });

  it('does not try a failed night again: nothing is due, exit 0', async () => {
    const io = recordingIo();
    await expect(runCli(['eval', 'scheduler', '--once'], env, io)).resolves.toBe(0);
    expect(io.written.join('')).toContain('no scheduled suite was due');
  });

  it('sweeps nothing while another scheduler holds the sweep', async () => {
    const held = await runtime.bus.leases.acquire('evals.schedules', 'another-scheduler', 120_000);
    expect(held).not.toBeNull();
    try {
      const io = recordingIo();
      await expect(runCli(['eval', 'scheduler', '--once'], env, io)).resolves.toBe(0);
      expect(io.written.join('')).toContain('another scheduler holds the sweep');
    } finally {
      if (held) await runtime.bus.leases.release(held);
    }
  });

  it('refuses a deployment without its bus and database in one line', async () => {
    const io = recordingIo();
    const outcome = runCli(['eval', 'scheduler', '--once'], { LOG_LEVEL: 'warn' }, io);
    await expect(outcome).resolves.toBe(1);
    const said = io.errors.join('');
    expect(said).toContain('NATS_URL: required, but unset');
    expect(said).toContain('DATABASE_URL: required, but unset');
    expect(said).not.toMatch(/\n\s+at /);
  });
});
