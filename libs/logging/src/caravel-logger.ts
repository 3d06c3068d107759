import type { LoggerService, LogLevel } from '@nestjs/common';
import type { Logger } from 'pino';
import { pinoLevelOfSet, PINO_LEVEL, type NestLevel } from './levels.js';

type Params = unknown[];

/** Nest appends the `new Logger('Context')` name as the last string parameter. */
function split(params: Params): { context?: string; rest: Params } {
  const last = params.at(-1);
  return typeof last === 'string' && params.length > 0
    ? { context: last, rest: params.slice(0, -1) }
    : { rest: params };
}

function looksLikeStack(value: unknown): value is string {
  return typeof value === 'string' && /\n\s+at /.test(value);
}

/**
 * Nest's logger, written by pino: every `new Logger('X')` in the services (and Nest's own lines)
 * becomes one structured line with `context: 'X'`, the service and the bound fields. Installed
 * once per process by {@link installLogger}; Nest's `logger: [levels]` option then only sets the
 * threshold ({@link setLogLevels}).
 */
export class CaravelLogger implements LoggerService {
  constructor(readonly pino: Logger) {}

  log(message: unknown, ...params: Params): void {
    this.write('log', message, params);
  }

  error(message: unknown, ...params: Params): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: Params): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: Params): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: Params): void {
    this.write('verbose', message, params);
  }

  fatal(message: unknown, ...params: Params): void {
    this.write('fatal', message, params);
  }

  setLogLevels(levels: LogLevel[]): void {
    this.pino.level = pinoLevelOfSet(levels);
  }

  private write(level: NestLevel, message: unknown, params: Params): void {
    const { context, rest } = split(params);
    const fields: Record<string, unknown> = context ? { context } : {};
    const stack = rest.find(looksLikeStack);
    if (message instanceof Error) fields['err'] = message;
    else if (stack) fields['err'] = { message: String(message), stack };
    const extra = rest.filter((p) => p !== stack);
    if (extra.length > 0) fields['details'] = extra;
    const text =
      message instanceof Error
        ? message.message
        : typeof message === 'object' && message !== null
          ? JSON.stringify(message)
          : String(message);
    this.pino[PINO_LEVEL[level]](fields, text);
  }
}
