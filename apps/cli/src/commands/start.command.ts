import { loadConfig, type EnvSource } from '@caravel/config';
import {
  closeOnSignals,
  logLevelsFrom,
  openEmbeddedRuntime,
  startServiceHost,
  type ServiceHost,
} from '@caravel/platform';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { embeddedConfigSchema } from '../cli.config.js';
import { SERVICES, type ServiceOverrides } from '../services.js';

export interface StartOptions {
  dataDir?: string;
  port?: number;
  /** Install SIGTERM/SIGINT handlers that drain and exit (default true; tests turn it off). */
  handleSignals?: boolean;
  /** Test doubles the services are built with (an injected dispatch clock). */
  overrides?: ServiceOverrides;
}

/** Starts every service module in this process on the embedded bus and database. */
export async function startEmbedded(
  env: EnvSource,
  options: StartOptions = {},
): Promise<ServiceHost> {
  const config = loadConfig('caravel', embeddedConfigSchema, {
    ...env,
    ...(options.dataDir ? { CARAVEL_DATA_DIR: options.dataDir } : {}),
    ...(options.port !== undefined ? { PORT: String(options.port) } : {}),
  });
  const dataDir = resolve(config.CARAVEL_DATA_DIR);
  await mkdir(dataDir, { recursive: true });
  // Sandboxes live with the rest of the data unless the operator put them elsewhere.
  if (env['SANDBOX_ROOT'] === undefined) config.SANDBOX_ROOT = resolve(dataDir, 'sandboxes');
  const runtime = await openEmbeddedRuntime({
    name: 'caravel',
    dataDir,
    ...(config.CARAVEL_DATABASE_URL ? { databaseUrl: config.CARAVEL_DATABASE_URL } : {}),
  });
  try {
    const host = await startServiceHost({
      runtime,
      modules: SERVICES.map((s) => s.module(config, options.overrides)),
      port: config.PORT,
      host: config.HOST,
      logLevels: logLevelsFrom(config.LOG_LEVEL),
    });
    if (options.handleSignals ?? true) closeOnSignals(host, config.SHUTDOWN_GRACE_MS);
    process.stdout.write(`caravel (embedded) listening on ${host.url} — data in ${dataDir}\n`);
    return host;
  } catch (error) {
    await runtime.close();
    throw error;
  }
}
