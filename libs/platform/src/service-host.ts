import { CONSUMABLES, REQUEST_CATALOGUE, type Consumable } from '@caravel/contracts';
import { CaravelTransport } from '@caravel/messaging';
import {
  Module,
  type DynamicModule,
  type INestApplication,
  type LogLevel,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { startTracing, type TracingEnv } from '@caravel/metrics';
import { DirectRoutes, serveDirectRoutes } from './direct-routes.js';
import { httpMetrics } from './http-metrics.js';
import { httpTracing } from './http-tracing.js';
import { PlatformModule } from './platform.module.js';
import { ReadinessService } from './readiness.service.js';
import type { PlatformRuntime } from './runtime.js';

export interface ServiceHostOptions {
  runtime: PlatformRuntime;
  /** The service root modules this process hosts: one in distributed mode, all when embedded. */
  modules: readonly (Type | DynamicModule)[];
  port: number;
  host?: string;
  logLevels?: LogLevel[];
  /**
   * OpenTelemetry traces: the service's name and the variables (`OTEL_*`) that say where spans
   * go; absent, or naming no collector, means no traces (the default).
   */
  tracing?: { service: string; env: TracingEnv };
}

/** A running process: its Nest app and the address its HTTP server listens on. */
export interface ServiceHost {
  readonly app: INestApplication;
  readonly url: string;
  /**
   * Graceful: first drains the bus consumers (their handlers told to stop) while every service
   * they may use is still up, then closes the services (their `onModuleDestroy`: sandboxes,
   * checkpointer), the request servers, HTTP, the bus and the database.
   */
  close(): Promise<void>;
}

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** Nest's levels from a config value such as `info` (everything at or above it). */
export function logLevelsFrom(level: string): LogLevel[] {
  const normalized = (level === 'info' ? 'log' : level) as LogLevel;
  const index = LEVELS.indexOf(normalized);
  return LEVELS.slice(0, index < 0 ? 4 : index + 1);
}

/**
 * Boots service modules on a runtime: HTTP (health + routes) and the bus transport that turns
 * `@EventPattern`/`@MessagePattern` handlers into durable consumers and request servers.
 */
export async function startServiceHost(options: ServiceHostOptions): Promise<ServiceHost> {
  const tracing = options.tracing
    ? await startTracing(options.tracing.service, options.tracing.env)
    : null;
  try {
    const { app, transport } = await bootApp(options, tracing !== null);
    const server = app.getHttpServer() as Server;
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    const host = options.host === '0.0.0.0' ? '127.0.0.1' : (options.host ?? '127.0.0.1');
    return {
      app,
      url: `http://${host}:${port}`,
      close: async () => {
        try {
          // Nest destroys the modules before it closes the transport: a run still in flight would
          // find its sandbox broker and its checkpointer gone. So the consumers drain first (their
          // handlers told to stop), with every service up; then Nest destroys the modules (the
          // broker ends its sessions, so the requests it still serves end) and drains the request
          // servers. Readiness says draining from the start.
          app.get(ReadinessService).beforeApplicationShutdown();
          await transport.closeConsumers();
          await app.close();
        } finally {
          await tracing?.shutdown();
        }
      },
    };
  } catch (error) {
    await tracing?.shutdown();
    throw error;
  }
}

async function bootApp(
  options: ServiceHostOptions,
  traced: boolean,
): Promise<{ app: INestApplication; transport: CaravelTransport }> {
  const { runtime } = options;
  class CaravelHostModule {}
  Module({ imports: [PlatformModule.forRoot(runtime), ...options.modules] })(CaravelHostModule);
  const app = await NestFactory.create(CaravelHostModule, {
    logger: options.logLevels ?? logLevelsFrom('info'),
    abortOnError: false,
  });
  app.use(httpMetrics);
  if (traced) app.use(httpTracing);
  serveDirectRoutes(app.getHttpServer() as Server, app.get(DirectRoutes), traced);
  const definitions: readonly Consumable[] = CONSUMABLES;
  const transport = new CaravelTransport(runtime.bus, definitions, REQUEST_CATALOGUE);
  app.connectMicroservice({ strategy: transport }, { inheritAppConfig: true });
  await app.startAllMicroservices();
  await app.listen(options.port, options.host ?? '127.0.0.1');
  return { app, transport };
}
