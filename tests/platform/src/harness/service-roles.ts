import {
  embeddedConfigSchema,
  runCli,
  SERVICES,
  type CliOutcome,
  type ServiceName,
  type ServiceOverrides,
} from '@caravel/cli';
import { loadConfig } from '@caravel/config';
import { openDatabase, serviceRole, type Database } from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import { deleteJetStreamNamespace } from '@caravel/messaging/testing';
import {
  BUS,
  logLevelsFrom,
  openDistributedRuntime,
  startServiceHost,
  type ServiceHost,
} from '@caravel/platform';
import { createTestPostgresDatabase, databaseUrlAs, testEnvironment } from '@caravel/testing';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pg from 'pg';
import { loopSandboxProvider } from './sandbox-gate.js';

/**
 * The platform as a deployment with per-service roles runs it: each of the seven services in its
 * own host, on its own `caravel_<service>` role (`DATABASE_MIGRATE=false`), sharing a JetStream
 * namespace and one PostgreSQL database that the owner migrated and granted.
 */
export interface RolePlatform {
  /** Each service's host (the ingress's serves the webhooks, the dashboard's its API). */
  readonly hosts: Readonly<Record<ServiceName, ServiceHost>>;
  /** A bus connection to publish on (the ingress's). */
  readonly bus: Bus;
  /** The owner's connection, for the test's own reads. */
  readonly database: Database;
  /** The services' JetStream namespace (BUS_NAMESPACE), for another process of the deployment. */
  readonly namespace: string;
  /** The database's URL logging in as `role` (as `caravel db grants` made it). */
  urlAs(role: string): string;
  /** Every line the services logged at warn and above, in this process. */
  readonly logs: readonly string[];
  /**
   * Every statement PostgreSQL refused for want of a privilege (42501), as `role: message`,
   * however the code that ran it took the error (a bus handler's retry logs nothing at first).
   */
  readonly refusals: readonly string[];
  close(): Promise<void>;
}

/**
 * Runs `caravel <args>` in this process as an operator would on a machine of the deployment
 * (`env` its environment): its exit code and everything it wrote.
 */
export async function runCaravel(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: CliOutcome; output: string }> {
  const written: string[] = [];
  const code = await runCli(args, env, {
    out: (text) => written.push(text),
    err: (text) => written.push(text),
    stdin: Readable.from([]),
    onSignal: () => undefined,
  });
  return { code, output: written.join('') };
}

/** Runs `caravel db <args>` as the owner would; fails with its output when it does. */
async function caravelDb(args: string[]): Promise<void> {
  const { code, output } = await runCaravel(['db', ...args]);
  if (code !== 0) throw new Error(`caravel db ${args[0]} failed (${code}): ${output}`);
}

/**
 * Keeps what this process writes to stdout and stderr (Nest's logger writes there) while still
 * writing it; `restore` puts the writers back.
 */
function captureOutput(): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write.bind(stream));
  streams.forEach((stream, i) => {
    stream.write = (chunk: string | Uint8Array, ...rest: never[]) => {
      lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return originals[i]!(chunk, ...rest);
    };
  });
  return {
    lines,
    restore: () => streams.forEach((stream, i) => (stream.write = originals[i]!)),
  };
}

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

/**
 * Notes every query of this process's node-postgres clients (Kysely's pools and LangGraph's
 * alike) that PostgreSQL refuses with 42501, insufficient privilege; the caller still gets the
 * error. `restore` puts the client's query back.
 */
function recordRefusals(): { refusals: string[]; restore(): void } {
  const refusals: string[] = [];
  const prototype = pg.Client.prototype as unknown as { query: Query };
  const original = prototype.query;
  const note = (client: pg.Client, error: unknown) => {
    const { code, message } = (error ?? {}) as { code?: string; message?: string };
    if (code === '42501') refusals.push(`${client.user ?? '?'}: ${message}`);
  };
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (error: unknown, ...rest: unknown[]) => {
        note(this, error);
        return (last as (...a: unknown[]) => unknown)(error, ...rest);
      };
    }
    const result = original.apply(this, args);
    if (result instanceof Promise) result.catch((error: unknown) => note(this, error));
    return result;
  };
  return { refusals, restore: () => (prototype.query = original) };
}

/**
 * Starts a {@link RolePlatform}: a fresh database migrated with `caravel db migrate` and granted
 * with `caravel db grants --apply` (the owner's steps), then one host per service on its role.
 * `env` configures the services as it would `caravel start`.
 */
export async function startRolePlatform(
  env: Record<string, string>,
  overrides: ServiceOverrides = {},
): Promise<RolePlatform> {
  const dataDir = await mkdtemp(join(tmpdir(), 'caravel-roles-'));
  await chmod(dataDir, 0o755); // the sandbox user must reach the sandboxes inside
  const settings = {
    LOG_LEVEL: 'warn',
    SANDBOX_ROOT: join(dataDir, 'sandboxes'),
    SANDBOX_PROVIDER: loopSandboxProvider(),
    CARAVEL_DATA_DIR: dataDir,
    ...env,
  };
  const config = loadConfig('caravel', embeddedConfigSchema, settings);
  const server = await createTestPostgresDatabase();
  const namespace = `r${randomBytes(5).toString('hex')}`;
  await caravelDb(['migrate', '--database-url', server.url]);
  await caravelDb(['grants', '--apply', '--database-url', server.url]);
  const owner = await openDatabase({ url: server.url, migrate: 'check' });
  const output = captureOutput();
  const refused = recordRefusals();
  const hosts: Partial<Record<ServiceName, ServiceHost>> = {};
  const close = async () => {
    for (const host of Object.values(hosts).reverse()) await host.close();
    output.restore();
    refused.restore();
    await owner.close();
    await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
    // The roles are the server's and stay: other suites (db.command, the checkpointer) grant
    // the same roles on their own databases at the same time, and a drop between another's
    // creation and its grants would fail them. Without privileges they reach nothing.
    await server.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    for (const service of SERVICES) {
      const runtime = await openDistributedRuntime({
        name: `caravel-${service.name}-${namespace}`,
        natsUrl: testEnvironment.TEST_NATS_URL,
        databaseUrl: databaseUrlAs(server.url, serviceRole(service.name)),
        migrate: false,
        busNamespace: namespace,
      });
      hosts[service.name] = await startServiceHost({
        runtime,
        modules: [service.module(config, overrides)],
        port: 0,
        logLevels: logLevelsFrom(config.host.logLevel),
      });
    }
  } catch (error) {
    await close();
    throw error;
  }
  const all = hosts as Record<ServiceName, ServiceHost>;
  return {
    hosts: all,
    bus: all.ingress.app.get<symbol, Bus>(BUS),
    database: owner,
    namespace,
    urlAs: (role) => databaseUrlAs(server.url, role),
    logs: output.lines,
    refusals: refused.refusals,
    close,
  };
}
