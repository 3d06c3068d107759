import { distributedServiceSchema, loadConfig, type EnvSource } from '@caravel/config';
import { isAppError } from '@caravel/errors';
import type { DynamicModule, Type } from '@nestjs/common';
import { hostname } from 'node:os';
import type { z } from 'zod';
import { openDistributedRuntime } from './open-runtime.js';
import { logLevelsFrom, startServiceHost, type ServiceHost } from './service-host.js';

type ServiceSchema = ReturnType<typeof distributedServiceSchema>;

export interface RunServiceOptions<S extends ServiceSchema> {
  name: string;
  /** The service's root module, or a function building it from the parsed configuration. */
  module: Type | ((config: z.output<S>) => DynamicModule);
  schema: S;
  env: EnvSource;
}

function isModuleFactory<C>(
  module: Type | ((config: C) => DynamicModule),
): module is (config: C) => DynamicModule {
  // A class has a prototype; an arrow function building a dynamic module does not.
  return !('prototype' in module && module.prototype !== undefined);
}

/** Stops the process cleanly on SIGTERM/SIGINT, or hard after the grace period. */
export function closeOnSignals(
  host: ServiceHost,
  graceMs: number,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    process.stderr.write(`${signal}: draining (up to ${graceMs} ms)\n`);
    setTimeout(() => exit(1), graceMs).unref();
    host.close().then(
      () => exit(0),
      () => exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

/** Prints a start-up failure as one clear line (no stack for known errors) and exits 1. */
export function failStartup(service: string, error: unknown): never {
  const message = isAppError(error)
    ? error.message
    : error instanceof Error
      ? (error.stack ?? error.message)
      : String(error);
  process.stderr.write(`${service} failed to start: ${message}\n`);
  process.exit(1);
}

/** The whole `main.ts` of a distributed service: config, runtime, host, signals. */
export async function runService<S extends ServiceSchema>(
  options: RunServiceOptions<S>,
): Promise<ServiceHost> {
  try {
    const config: z.output<S> = loadConfig(options.name, options.schema, options.env);
    const runtime = await openDistributedRuntime({
      name: `${options.name}-${hostname()}-${process.pid}`,
      natsUrl: config.NATS_URL,
      databaseUrl: config.DATABASE_URL,
      ...(config.BUS_NAMESPACE ? { busNamespace: config.BUS_NAMESPACE } : {}),
    });
    const host = await startServiceHost({
      runtime,
      modules: [isModuleFactory(options.module) ? options.module(config) : options.module],
      port: config.PORT,
      host: config.HOST,
      logLevels: logLevelsFrom(config.LOG_LEVEL),
    }).catch(async (error: unknown) => {
      await runtime.close();
      throw error;
    });
    closeOnSignals(host, config.SHUTDOWN_GRACE_MS);
    process.stdout.write(`${options.name} listening on ${host.url}\n`);
    return host;
  } catch (error) {
    return failStartup(options.name, error);
  }
}
