import { loadConfig, type EnvSource } from '@caravel/config';
import type { DatabaseLogger } from '@caravel/db';
import { AppError } from '@caravel/errors';
import {
  closeOnSignals,
  logLevelsFrom,
  openEmbeddedRuntime,
  startServiceHost,
  type ServiceHost,
} from '@caravel/platform';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { embeddedConfigSchema, type EmbeddedConfig } from '../cli.config.js';
import { SERVICES, type ServiceOverrides } from '../services.js';
import { assertPortFree } from './port-check.js';
import { checkModel, missingSandboxTools } from './preflight.js';

export interface StartOptions {
  dataDir?: string;
  port?: number;
  /** Install SIGTERM/SIGINT handlers that drain and exit (default true; tests turn it off). */
  handleSignals?: boolean;
  /** Test doubles the services are built with (an injected dispatch clock). */
  overrides?: ServiceOverrides;
  /** Where the start says what it is doing (default: stdout, `caravel: …`). */
  progress?: (line: string) => void;
  /**
   * The model runs will use, checked before anything boots (default: CARAVEL_MODEL when set);
   * `origin` names where it was given (`--model`).
   */
  model?: { spec: string; origin: string };
  /** Refuse to start without any model, and without a usable sandbox (`caravel run`). */
  forRun?: boolean;
}

/** What must hold before the long boot: a model that can work, a sandbox, a free port. */
async function preflight(
  env: EnvSource,
  config: EmbeddedConfig,
  options: StartOptions,
  say: (line: string) => void,
): Promise<void> {
  const model =
    options.model ??
    (config.CARAVEL_MODEL ? { spec: config.CARAVEL_MODEL, origin: 'CARAVEL_MODEL' } : undefined);
  if (model) checkModel(model.spec, model.origin, config);
  else if (options.forRun) {
    throw new AppError(
      'CONFIG_INVALID',
      'no model: pass --model (e.g. scripted:examples/fix-sample.script.yaml) or set CARAVEL_MODEL',
    );
  } else say('note: no team default model (CARAVEL_MODEL): a run needs one from its thread');
  const sandbox = missingSandboxTools(config, env['PATH']);
  if (sandbox && options.forRun) throw new AppError('PRECONDITION_FAILED', sandbox);
  if (sandbox) say(`note: runs will fail until this is fixed: ${sandbox}`);
  await assertPortFree(config.HOST, config.PORT);
}

/** Says "applying database migrations" once, when the first one is applied. */
function migrationReporter(say: (line: string) => void): DatabaseLogger {
  let told = false;
  return {
    log: (message) => {
      if (told || !message.startsWith('applied migration')) return;
      told = true;
      say('applying database migrations');
    },
    warn: (message) => say(`warning: ${message}`),
  };
}

/** Where the start says what it is doing, unless told otherwise: stdout, `caravel: …`. */
function sayOf(options: StartOptions): (line: string) => void {
  return options.progress ?? ((line: string) => process.stdout.write(`caravel: ${line}\n`));
}

/**
 * The embedded host's configuration, parsed once, and the checks that must pass before the long
 * boot (model, sandbox, port).
 */
export async function embeddedConfig(
  env: EnvSource,
  options: StartOptions,
  say = sayOf(options),
): Promise<EmbeddedConfig> {
  const config = loadConfig('caravel', embeddedConfigSchema, {
    ...env,
    ...(options.dataDir ? { CARAVEL_DATA_DIR: options.dataDir } : {}),
    ...(options.port !== undefined ? { PORT: String(options.port) } : {}),
  });
  await preflight(env, config, options, say);
  return config;
}

/** Boots every service module in this process on a checked configuration, saying each phase. */
export async function bootEmbedded(
  config: EmbeddedConfig,
  env: EnvSource,
  say: (line: string) => void,
  options: Pick<StartOptions, 'handleSignals' | 'overrides'> = {},
): Promise<ServiceHost> {
  const dataDir = resolve(config.CARAVEL_DATA_DIR);
  await mkdir(dataDir, { recursive: true });
  // Sandboxes live with the rest of the data unless the operator put them elsewhere.
  if (env['SANDBOX_ROOT'] === undefined) config.SANDBOX_ROOT = resolve(dataDir, 'sandboxes');
  const pgdata = join(dataDir, 'pgdata');
  say(
    config.CARAVEL_DATABASE_URL
      ? 'opening the database at CARAVEL_DATABASE_URL'
      : existsSync(pgdata)
        ? `opening the database in ${pgdata}`
        : `initialising the database in ${pgdata} (first start only; about 15 s, longer on a busy machine)`,
  );
  const runtime = await openEmbeddedRuntime({
    name: 'caravel',
    dataDir,
    logger: migrationReporter(say),
    ...(config.CARAVEL_DATABASE_URL ? { databaseUrl: config.CARAVEL_DATABASE_URL } : {}),
  });
  try {
    say(`starting the services (${SERVICES.map((s) => s.name).join(', ')})`);
    const host = await startServiceHost({
      runtime,
      modules: SERVICES.map((s) => s.module(config, options.overrides)),
      port: config.PORT,
      host: config.HOST,
      logLevels: logLevelsFrom(config.LOG_LEVEL),
    });
    if (options.handleSignals ?? true) closeOnSignals(host, config.SHUTDOWN_GRACE_MS);
    say(`ready: listening on ${host.url} (data in ${dataDir})`);
    return host;
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

/** Starts every service module in this process on the embedded bus and database. */
export async function startEmbedded(
  env: EnvSource,
  options: StartOptions = {},
): Promise<ServiceHost> {
  const say = sayOf(options);
  return bootEmbedded(await embeddedConfig(env, options, say), env, say, options);
}
