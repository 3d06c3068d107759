import { pino, type DestinationStream, type Logger } from 'pino';
import { currentLogFields } from './log-context.js';
import { pinoLevelOf } from './levels.js';
import { prettyLine } from './pretty.js';
import { valueScrubber } from './secret-values.js';

/** JSON lines (distributed services, for a log pipeline) or readable text (embedded, CLI). */
export type LogFormat = 'json' | 'pretty';

export interface LoggerOptions {
  /** The process's role, on every line: `dispatch`, `caravel`, … */
  readonly service: string;
  /** A LOG_LEVEL value (fatal, error, warn, info, debug, verbose); default info. */
  readonly level?: string;
  readonly format?: LogFormat;
  /** Where lines go; default stdout. */
  readonly destination?: { write(text: string): unknown };
  /** Where warnings and errors go instead, if set (the CLI: stderr, as Nest's console did). */
  readonly errorDestination?: { write(text: string): unknown };
  /** Credential values scrubbed from every line wherever they appear ({@link secretValuesOf}). */
  readonly secretValues?: readonly string[];
}

type Out = { write(text: string): unknown };

/** pino's numeric level of warn: lines at or above it may go to the error destination. */
const WARN = 40;

/** Sends each JSON line to `out`, or to `errors` from warn up; `format` turns it into text. */
function routed(
  out: Out,
  errors: Out | undefined,
  format: (line: string) => string,
): DestinationStream {
  return {
    write(line: string) {
      const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? 0);
      void (errors && level >= WARN ? errors : out).write(format(line));
    },
  };
}

/**
 * Keys whose values never reach a log line, wherever a caller passes them as fields: credentials
 * by name (a header, a config object, an error's request options).
 */
export const REDACTED_KEYS = [
  'authorization',
  'cookie',
  'password',
  'secret',
  'token',
  'apiKey',
  'privateKey',
  'DATABASE_URL',
];

function redactPaths(): string[] {
  return REDACTED_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `headers["${key}"]`]);
}

/**
 * The process's pino logger: `service` and the fields bound to the running work
 * ({@link runWithLogFields}: correlation id, thread, subject) on every line, credentials redacted
 * by key and by value, errors serialised with their stack.
 */
export function createLogger(options: LoggerOptions): Logger {
  const out = options.destination ?? process.stdout;
  const scrub = valueScrubber(options.secretValues ?? []);
  const destination = routed(out, options.errorDestination, (line) =>
    options.format === 'pretty' ? prettyLine(scrub(line)) : scrub(line),
  );
  return pino(
    {
      level: pinoLevelOf(options.level ?? 'info'),
      base: { service: options.service },
      mixin: () => ({ ...currentLogFields() }),
      redact: { paths: redactPaths(), censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
    },
    destination,
  );
}
