import { context, propagation, trace } from '@opentelemetry/api';
import { tracingSettings, type TracingEnv, type TracingSettings } from './tracing-settings.js';

/** The tracing of this process, started by {@link startTracing}; `shutdown` sends what is left. */
export interface Tracing {
  readonly settings: TracingSettings;
  shutdown(): Promise<void>;
}

/** One SDK per process (the OpenTelemetry API holds one global provider), shared by its hosts. */
let shared: { tracing: Promise<Tracing>; users: number } | null = null;

async function register(settings: TracingSettings): Promise<Tracing> {
  // The SDK and the exporter are loaded only when traces are on: an untraced process never pays.
  const [{ TracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resources, hooks, core] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
    ]);
  const exporter = new OTLPTraceExporter({ url: settings.url, headers: { ...settings.headers } });
  const provider = new TracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': settings.serviceName,
      'service.namespace': 'caravel',
    }),
    spanProcessors: [
      new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.scheduleDelayMs }),
    ],
  });
  context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    settings,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * Starts sending this process's spans to the OTLP collector the `OTEL_*` variables name, or does
 * nothing (null) when they name none. Hosts of one process share the SDK; it stops, sending what
 * it holds, when the last of them shuts its tracing down.
 */
export async function startTracing(service: string, env: TracingEnv): Promise<Tracing | null> {
  const settings = tracingSettings(service, env);
  if (!settings) return null;
  shared ??= { tracing: register(settings), users: 0 };
  const current = shared;
  current.users += 1;
  const tracing = await current.tracing;
  let stopped = false;
  return {
    settings: tracing.settings,
    shutdown: async () => {
      if (stopped) return;
      stopped = true;
      current.users -= 1;
      if (current.users > 0) return;
      if (shared === current) shared = null;
      await tracing.shutdown();
    },
  };
}
