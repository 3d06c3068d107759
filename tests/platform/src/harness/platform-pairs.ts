import { embeddedConfigSchema, SERVICES, startEmbedded, type ServiceOverrides } from '@caravel/cli';
import { loadConfig } from '@caravel/config';
import type { Database } from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import { deleteJetStreamNamespace } from '@caravel/messaging/testing';
import {
  BUS,
  DATABASE,
  logLevelsFrom,
  openDistributedRuntime,
  startServiceHost,
  type ServiceHost,
} from '@caravel/platform';
import { createTestPostgresDatabase, serviceGate, testEnvironment } from '@caravel/testing';
import { describe } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isolationGate, loopSandboxProvider } from './sandbox-gate.js';

/** The two ways Caravel runs, each a bus + database pair. */
export type PairKind = 'embedded' | 'distributed';

/** Every service running in this process on one pair. */
export interface PlatformPair {
  readonly kind: PairKind;
  readonly label: string;
  readonly bus: Bus;
  readonly database: Database;
  readonly host: ServiceHost;
  close(): Promise<void>;
}

const LABELS: Record<PairKind, string> = {
  embedded: 'embedded bus + PGlite',
  distributed: 'NATS JetStream + PostgreSQL',
};

function pairOf(kind: PairKind, host: ServiceHost, close: () => Promise<void>): PlatformPair {
  return {
    kind,
    label: LABELS[kind],
    host,
    bus: host.app.get<symbol, Bus>(BUS),
    database: host.app.get<symbol, Database>(DATABASE),
    close,
  };
}

async function scratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o755); // the sandbox user must reach the sandboxes inside
  return dir;
}

/**
 * Starts every service in this process on one pair: the embedded bus on PGlite, or JetStream
 * (a fresh namespace) on PostgreSQL (a fresh database). `env` configures the services as it would
 * `caravel start`; `overrides` swaps in test doubles (a clock). Sandboxes are bubblewrap's
 * where it is installed, else `local` (a scenario that tests isolation sets `SANDBOX_PROVIDER`
 * itself, under {@link describeEachPair}'s `isolation` gate).
 */
export async function startPair(
  kind: PairKind,
  env: Record<string, string>,
  overrides: ServiceOverrides = {},
): Promise<PlatformPair> {
  const dataDir = await scratchDir(`caravel-${kind}-`);
  const settings = {
    LOG_LEVEL: 'warn',
    SANDBOX_ROOT: join(dataDir, 'sandboxes'),
    SANDBOX_PROVIDER: loopSandboxProvider(),
    ...env,
  };
  if (kind === 'embedded') {
    const host = await startEmbedded(settings, {
      dataDir,
      port: 0,
      handleSignals: false,
      overrides,
    });
    return pairOf(kind, host, async () => {
      await host.close();
      await rm(dataDir, { recursive: true, force: true });
    });
  }
  const database = await createTestPostgresDatabase();
  const namespace = `p${randomBytes(5).toString('hex')}`;
  const config = loadConfig('caravel', embeddedConfigSchema, {
    ...settings,
    CARAVEL_DATA_DIR: dataDir,
  });
  const runtime = await openDistributedRuntime({
    name: `caravel-${namespace}`,
    natsUrl: testEnvironment.TEST_NATS_URL,
    databaseUrl: database.url,
    busNamespace: namespace,
  });
  const host = await startServiceHost({
    runtime,
    modules: SERVICES.map((service) => service.module(config, overrides)),
    port: 0,
    logLevels: logLevelsFrom(config.host.logLevel),
    tracing: { service: 'caravel', env: settings },
  });
  return pairOf(kind, host, async () => {
    await host.close();
    await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });
}

/**
 * Runs `body` once per pair. The embedded pair always runs; the NATS + PostgreSQL pair runs when
 * both answer, says "skipped: <reason>" when not, and is required under CI=true. A suite that
 * tests isolation (`isolation: true`) needs bubblewrap as well, on the same terms.
 */
export async function describeEachPair(
  name: string,
  body: (kind: PairKind) => void,
  needs: { isolation?: boolean } = {},
): Promise<void> {
  const sandbox = needs.isolation ? isolationGate() : { describe };
  sandbox.describe(`${name} [${LABELS.embedded}]`, () => body('embedded'));
  const services = await serviceGate(['nats', 'postgres']);
  const distributed = `${name} [${LABELS.distributed}]`;
  if (services.missing) services.describe(distributed, () => body('distributed'));
  else sandbox.describe(distributed, () => body('distributed'));
}
