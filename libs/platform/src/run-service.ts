import { loadConfig, type ConfigSchema, type EnvSource, type ServiceConfig } from '@caravel/config';
import { isAppError } from '@caravel/errors';
import { installLogger } from '@caravel/logging';
import type { DynamicModule, Type } from '@nestjs/common';
import { hostname } from 'node:os';
import type { z } from 'zod';
import { openDistributedRuntime } from './open-runtime.js';
import { logLevelsFrom, startServiceHost, type ServiceHost } from './service-host.js';

/**
 * A distributed service's config schema: its environment keys, typed at parse time into the
 * app's configuration beside the common `service` slice (port, bus, database, logs). A schema
 * that parses to anything else is refused at compile time.
 */
type ServiceConfigSchema<S extends ConfigSchema> =
  z.output<S> extends { service: ServiceConfig } ? S : never;

export interface RunServiceOptions<S extends ConfigSchema> {
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
    setTimeout(() => {
      process.stderr.write(`${signal}: not drained within ${graceMs} ms; exiting 1\n`);
      exit(1);
    }, graceMs).unref();
    host.close().then(
      () => exit(0),
      (error: unknown) => {
        process.stderr.write(`${signal}: closing failed: ${String(error)}; exiting 1\n`);
        exit(1);
      },
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

/**
 * The whole `main.ts` of a distributed service: the JSON logger named after the service, config,
 * runtime, host, signals.
 */
export async function runService<S extends ConfigSchema>(
  options: RunServiceOptions<S> & { schema: ServiceConfigSchema<S> },
): Promise<ServiceHost> {
  installLogger({ service: options.name, format: 'json', env: options.env });
  try {
    const config: z.output<S> = loadConfig(options.name, options.schema, options.env);
    // ServiceConfigSchema<S> holds at every call site; inside, z.output<S> is not narrowed.
    const { service } = config as { service: ServiceConfig };
    const runtime = await openDistributedRuntime({
      name: `${options.name}-${hostname()}-${process.pid}`,
      natsUrl: service.natsUrl,
      databaseUrl: service.databaseUrl,
      migrate: service.databaseMigrate,
      ...(service.busNamespace ? { busNamespace: service.busNamespace } : {}),
    });
    const host = await startServiceHost({
      runtime,
      modules: [isModuleFactory(options.module) ? options.module(config) : options.module],
      port: service.port,
      host: service.host,
      logLevels: logLevelsFrom(service.logLevel),
      tracing: { service: `caravel-${options.name}`, env: options.env },
    }).catch(async (error: unknown) => {
      await runtime.close();
      throw error;
    });
    closeOnSignals(host, service.shutdownGraceMs);
    process.stdout.write(`${options.name} listening on ${host.url}\n`);
    return host;
  } catch (error) {
    return failStartup(options.name, error);
  }
}
