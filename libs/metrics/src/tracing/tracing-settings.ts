/**
 * Whether and where this process sends OpenTelemetry traces, read from the standard `OTEL_*`
 * variables. Off by default: traces are sent only when an OTLP endpoint is named
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`), and
 * never with `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 */
export interface TracingSettings {
  /** Where spans are POSTed (OTLP over HTTP, JSON). */
  readonly url: string;
  /** `service.name` of every span (`OTEL_SERVICE_NAME`, else the process's own name). */
  readonly serviceName: string;
  /** Extra request headers for the collector (`OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`). */
  readonly headers: Readonly<Record<string, string>>;
  /** How long spans wait before a batch is sent (`OTEL_BSP_SCHEDULE_DELAY`, default 5 s). */
  readonly scheduleDelayMs: number;
}

export type TracingEnv = Readonly<Record<string, string | undefined>>;

const DEFAULT_SCHEDULE_DELAY_MS = 5_000;

/** `a=1,b=2` (values percent-encoded, as the OTLP exporter specification has them). */
function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    if (key) headers[key] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

function positiveMs(text: string | undefined, fallback: number): number {
  const value = Number(text);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** The tracing of a process named `service` (`caravel-dispatch`), or null when traces are off. */
export function tracingSettings(service: string, env: TracingEnv): TracingSettings | null {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return null;
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? 'otlp').split(',').map((e) => e.trim());
  if (!exporters.includes('otlp')) return null;
  const signal = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim();
  const url = signal || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : '');
  if (!url) return null;
  return {
    url,
    serviceName: env['OTEL_SERVICE_NAME']?.trim() || service,
    headers: {
      ...parseHeaders(env['OTEL_EXPORTER_OTLP_HEADERS']),
      ...parseHeaders(env['OTEL_EXPORTER_OTLP_TRACES_HEADERS']),
    },
    scheduleDelayMs: positiveMs(env['OTEL_BSP_SCHEDULE_DELAY'], DEFAULT_SCHEDULE_DELAY_MS),
  };
}
