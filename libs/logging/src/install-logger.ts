import { Logger } from '@nestjs/common';
import { CaravelLogger } from './caravel-logger.js';
import { createLogger, type LoggerOptions } from './create-logger.js';
import { secretValuesOf } from './secret-values.js';

/**
 * Makes pino the process's one logger: Nest's static logger (so every `new Logger('X')` and
 * Nest's own lines) writes through it. Call first thing in a `main`, before any module boots.
 * Returns the logger, for code that logs outside Nest.
 */
export function installLogger(
  options: LoggerOptions & {
    /** The process environment: its credential values are scrubbed from every line. */
    readonly env?: Readonly<Record<string, string | undefined>>;
  },
): CaravelLogger {
  const secretValues = [...(options.secretValues ?? []), ...secretValuesOf(options.env ?? {})];
  const logger = new CaravelLogger(createLogger({ ...options, secretValues }));
  Logger.overrideLogger(logger);
  return logger;
}
