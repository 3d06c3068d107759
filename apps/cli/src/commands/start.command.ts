import type { EnvSource } from '@caravel/config';
import type { ServiceHost } from '@caravel/platform';
import type { DynamicModule } from '@nestjs/common';
import type { EmbeddedConfig } from '../cli.config.js';
import type { ServiceOverrides } from '../services.js';
import { bootEmbedded, embeddedConfig, sayOf, type StartOptions } from './embedded-boot.js';

export type { StartOptions } from './embedded-boot.js';

/** The embedded host's own modules beside the services': `caravel start` runs scheduled evals. */
async function hostModules(
  config: EmbeddedConfig,
  env: EnvSource,
  overrides: ServiceOverrides,
): Promise<DynamicModule[]> {
  const { EvalSchedulesModule } = await import('./eval/schedule/eval-schedules.module.js');
  return [EvalSchedulesModule.register(config.evalSchedules, env, overrides.clock)];
}

/** Starts every service module in this process on the embedded bus and database. */
export async function startEmbedded(
  env: EnvSource,
  options: StartOptions = {},
): Promise<ServiceHost> {
  const say = sayOf(options);
  return bootEmbedded(await embeddedConfig(env, options, say), env, say, {
    ...options,
    hostModules,
  });
}
