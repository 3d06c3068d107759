import { startEmbedded } from '@caravel/cli';
import { serviceGate, testEnvironment } from '@caravel/testing';
import { describe } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { deleteJetStreamNamespace } from '../../libs/messaging/src/jetstream/jetstream-bus.harness.js';
import { buildWorkspace, freePort, ServiceProcess } from './processes.js';
import { expectReady } from './walking-skeleton.js';

/** A running Caravel: where webhooks go, where the dashboard API answers, and how to stop it. */
export interface Platform {
  /** Base URL of ingress (`/webhooks/*`, `/connect/*`). */
  readonly ingressUrl: string;
  /** Base URL of the dashboard API (`/api/*`). */
  readonly apiUrl: string;
  /** What the platform logged, for a failure message (empty in-process). */
  logs(): string;
  close(): Promise<void>;
}

/** Every service in one process: the embedded bus on PGlite in `dir/data`. */
export async function startEmbeddedPlatform(
  dir: string,
  env: Record<string, string>,
): Promise<Platform> {
  const host = await startEmbedded(
    { LOG_LEVEL: 'warn', SANDBOX_ROOT: join(dir, 'sandboxes'), ...env },
    { dataDir: join(dir, 'data'), port: 0, handleSignals: false },
  );
  return {
    ingressUrl: host.url,
    apiUrl: host.url,
    logs: () => '',
    close: () => host.close(),
  };
}

const SERVICES = ['ingress', 'dispatch', 'agent-runner', 'sandbox-broker', 'dashboard'] as const;

/**
 * Each service its own OS process (the built `dist`), on NATS JetStream under a fresh namespace
 * and a fresh PostgreSQL database, both dropped on close.
 */
export async function startProcessPlatform(
  dir: string,
  env: Record<string, string>,
): Promise<Platform> {
  buildWorkspace();
  const namespace = `e${randomBytes(4).toString('hex')}`;
  const database = `caravel_e2e_${namespace}`;
  const admin = new pg.Client({ connectionString: testEnvironment.TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(testEnvironment.TEST_DATABASE_URL);
  url.pathname = `/${database}`;
  const shared = {
    SANDBOX_ROOT: join(dir, 'sandboxes'),
    NATS_URL: testEnvironment.TEST_NATS_URL,
    DATABASE_URL: url.toString(),
    BUS_NAMESPACE: namespace,
    LOG_LEVEL: 'warn',
    SHUTDOWN_GRACE_MS: '10000',
    ...env,
  };
  const processes: ServiceProcess[] = [];
  for (const name of SERVICES) processes.push(new ServiceProcess(name, await freePort(), shared));
  const logs = () => processes.map((p) => `--- ${p.name}\n${p.log}`).join('\n');
  const close = async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
  };
  try {
    for (const service of processes) await expectReady(service.url);
  } catch (error) {
    const message = `the platform never became ready: ${String(error)}\n${logs()}`;
    await close();
    throw new Error(message);
  }
  const urlOf = (name: string) => processes.find((p) => p.name === name)?.url ?? '';
  return { ingressUrl: urlOf('ingress'), apiUrl: urlOf('dashboard'), logs, close };
}

/** Runs `check`; when it fails, the platform's logs are added to the error. */
export async function withLogs(platform: Platform, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    const logs = platform.logs();
    if (!logs) throw error;
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs}`, {
      cause: error,
    });
  }
}

/** One way to run the platform, and the suite function to declare its tests with. */
export interface PlatformShape {
  mode: string;
  /** Each service its own OS process (whose environment reaches Node: NODE_V8_COVERAGE). */
  processes: boolean;
  start: (dir: string, env: Record<string, string>) => Promise<Platform>;
  /** `describe`, or a skipped suite that says why when NATS or PostgreSQL is not reachable. */
  suite: (name: string, body: () => void) => void;
}

/** The two shapes every end-to-end proof runs on: embedded, and processes on NATS + PostgreSQL. */
export async function platformShapes(): Promise<PlatformShape[]> {
  const gate = await serviceGate(['nats', 'postgres']);
  return [
    { mode: 'embedded platform', processes: false, start: startEmbeddedPlatform, suite: describe },
    {
      mode: 'processes on NATS + PostgreSQL',
      processes: true,
      start: startProcessPlatform,
      suite: (name, body) => gate.describe(name, body),
    },
  ];
}
