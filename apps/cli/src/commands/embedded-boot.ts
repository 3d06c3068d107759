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
import type { DynamicModule } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { embeddedConfigSchema, type EmbeddedConfig } from '../cli.config.js';
import { SERVICES, type ServiceOverrides } from '../services.js';
import { assertPortFree } from './port-check.js';
import { BUNDLE_SETTINGS, checkRunBundleOptions, runBundlesFor } from './run-bundles.js';
import { checkModel, missingSandboxTools } from './preflight.js';

// Booting the embedded host, shared by `caravel start` (start.command.ts), `caravel run` and the
// eval attempts that run through it: the configuration and its preflight checks, then every
// service module in this process. What only `caravel start` adds (scheduled evals, which run
// attempts through `caravel run`) is passed in, so nothing here leads back to it.

/** How the embedded host is started (`caravel start`, `caravel run`, tests). */
export interface StartOptions {
  dataDir?: string;
  port?: number;
  /** Install SIGTERM/SIGINT handlers that drain and exit (default true; tests turn it off). */
  handleSignals?: boolean;
  /** Test doubles the services are built with (an injected clock). */
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
  const { models } = config.agentRunner;
  const model =
    options.model ??
    (models.teamDefault ? { spec: models.teamDefault, origin: 'CARAVEL_MODEL' } : undefined);
  if (model) checkModel(model.spec, model.origin, models);
  else if (options.forRun) {
    throw new AppError(
      'CONFIG_INVALID',
      'no model: pass --model (e.g. scripted:examples/fix-sample.script.yaml) or set CARAVEL_MODEL',
    );
  } else say('note: no team default model (CARAVEL_MODEL): a run needs one from its thread');
  const { review } = config.reviewer;
  if (review.model && review.modelKey === 'REVIEWER_MODEL') {
    checkModel(review.model, 'REVIEWER_MODEL', review);
  }
  const { analysis } = config.analyzer;
  if (analysis.model && analysis.modelKey === 'ANALYZER_MODEL') {
    checkModel(analysis.model, 'ANALYZER_MODEL', analysis);
  }
  // `caravel run` checks its own (its --tools-dir may replace the settings').
  if (!options.forRun) {
    await checkRunBundleOptions(
      config.host.sweTools ?? {},
      config.sandboxBroker.sandbox.provider,
      BUNDLE_SETTINGS,
    );
  }
  const sandbox = missingSandboxTools(
    { provider: config.sandboxBroker.sandbox.provider, egress: config.sandboxBroker.egress.mode },
    env['PATH'],
  );
  if (sandbox && options.forRun) throw new AppError('PRECONDITION_FAILED', sandbox);
  if (sandbox) say(`note: runs will fail until this is fixed: ${sandbox}`);
  await assertPortFree(config.host.host, config.host.port);
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
export function sayOf(options: StartOptions): (line: string) => void {
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

/** The overrides, with the settings' SWE-agent bundles read and staged unless given already. */
async function withToolBundles(
  config: EmbeddedConfig,
  dataDir: string,
  overrides: ServiceOverrides = {},
  say: (line: string) => void,
): Promise<ServiceOverrides> {
  if (overrides.toolBundles || !config.host.sweTools) return overrides;
  const toolBundles = await runBundlesFor(config.host.sweTools, dataDir);
  if (toolBundles)
    say(`SWE-agent bundles ${toolBundles.bundles.map((b) => b.name).join(', ')} read`);
  return toolBundles ? { ...overrides, toolBundles } : overrides;
}

/**
 * The embedded host's own modules beside the services' (`caravel start`'s scheduled evals), given
 * by the command that wants them: this file reaches none of their code.
 */
export type HostModules = (
  config: EmbeddedConfig,
  env: EnvSource,
  overrides: ServiceOverrides,
) => Promise<DynamicModule[]>;

/** Boots every service module in this process on a checked configuration, saying each phase. */
export async function bootEmbedded(
  config: EmbeddedConfig,
  env: EnvSource,
  say: (line: string) => void,
  options: Pick<StartOptions, 'handleSignals' | 'overrides'> & { hostModules?: HostModules } = {},
): Promise<ServiceHost> {
  const dataDir = resolve(config.host.dataDir);
  await mkdir(dataDir, { recursive: true });
  // Sandboxes live with the rest of the data unless the operator put them elsewhere.
  if (env['SANDBOX_ROOT'] === undefined) {
    config.sandboxBroker.sandbox.root = resolve(dataDir, 'sandboxes');
  }
  const pgdata = join(dataDir, 'pgdata');
  say(
    config.host.databaseUrl
      ? 'opening the database at CARAVEL_DATABASE_URL'
      : existsSync(pgdata)
        ? `opening the database in ${pgdata}`
        : `creating the database in ${pgdata} (first start only; the first on this machine takes about 15 s)`,
  );
  const runtime = await openEmbeddedRuntime({
    name: 'caravel',
    dataDir,
    logger: migrationReporter(say),
    ...(config.host.databaseUrl ? { databaseUrl: config.host.databaseUrl } : {}),
  });
  try {
    const overrides = await withToolBundles(config, dataDir, options.overrides, say);
    say(`starting the services (${SERVICES.map((s) => s.name).join(', ')})`);
    const host = await startServiceHost({
      runtime,
      modules: [
        ...SERVICES.map((s) => s.module(config, overrides)),
        ...(options.hostModules ? await options.hostModules(config, env, overrides) : []),
      ],
      port: config.host.port,
      host: config.host.host,
      logLevels: logLevelsFrom(config.host.logLevel),
      tracing: { service: 'caravel', env },
    });
    if (options.handleSignals ?? true) closeOnSignals(host, config.host.shutdownGraceMs);
    say(`ready: listening on ${host.url} (data in ${dataDir})`);
    return host;
  } catch (error) {
    await runtime.close();
    throw error;
  }
}
