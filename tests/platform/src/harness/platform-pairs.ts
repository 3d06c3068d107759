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

/** A host on a pair, with what a scenario reads from it and how it closes. */
export function pairOf(
  kind: PairKind,
  host: ServiceHost,
  close: () => Promise<void>,
): PlatformPair {
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
  const storage = await pairStorage(kind, env, overrides);
  const host = await storage.start();
  return pairOf(kind, host, async () => {
    await host.close();
    await storage.dispose();
  });
}

/**
 * A pair's storage (its data directory, and for the distributed pair its database and bus
 * namespace), on which hosts come and go as pods do in a rolling deploy (distributed: a new one
 * may start while the old one still runs) or as a restarted `caravel start` (embedded: one at a
 * time, PGlite has one owner). `start` starts every service on it; closing a host keeps the
 * storage, `dispose` removes it.
 */
export interface PairStorage {
  readonly kind: PairKind;
  /** Where the thread's sandboxes live: the same for every host on the storage. */
  readonly sandboxRoot: string;
  start(): Promise<ServiceHost>;
  dispose(): Promise<void>;
}

/** Opens a pair's storage (see {@link startPair} for `env` and `overrides`). */
export async function pairStorage(
  kind: PairKind,
  env: Record<string, string>,
  overrides: ServiceOverrides = {},
): Promise<PairStorage> {
  const dataDir = await scratchDir(`caravel-${kind}-`);
  const settings = {
    LOG_LEVEL: 'warn',
    SANDBOX_ROOT: join(dataDir, 'sandboxes'),
    SANDBOX_PROVIDER: loopSandboxProvider(),
    ...env,
  };
  const sandboxRoot = settings.SANDBOX_ROOT;
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true });
  if (kind === 'embedded') {
    return {
      kind,
      sandboxRoot,
      start: () => startEmbedded(settings, { dataDir, port: 0, handleSignals: false, overrides }),
      dispose: removeDataDir,
    };
  }
  const database = await createTestPostgresDatabase();
  const namespace = `p${randomBytes(5).toString('hex')}`;
  const config = loadConfig('caravel', embeddedConfigSchema, {
    ...settings,
    CARAVEL_DATA_DIR: dataDir,
  });
  let hosts = 0;
  return {
    kind,
    sandboxRoot,
    start: async () => {
      hosts += 1;
      const runtime = await openDistributedRuntime({
        name: `caravel-${namespace}-${hosts}`,
        natsUrl: testEnvironment.TEST_NATS_URL,
        databaseUrl: database.url,
        busNamespace: namespace,
      });
      return startServiceHost({
        runtime,
        modules: SERVICES.map((service) => service.module(config, overrides)),
        port: 0,
        logLevels: logLevelsFrom(config.host.logLevel),
        tracing: { service: 'caravel', env: settings },
      });
    },
    dispose: async () => {
      await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
      await database.drop();
      await removeDataDir();
    },
  };
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
