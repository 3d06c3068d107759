/** The levels Caravel's LOG_LEVEL names, lowest verbosity first (Nest's names, `log` = info). */
export const NEST_LEVELS = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;
export type NestLevel = (typeof NEST_LEVELS)[number];

/** The pino level each Nest level writes at. */
export const PINO_LEVEL = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
} as const satisfies Record<NestLevel, string>;

export type PinoLevel = (typeof PINO_LEVEL)[NestLevel];

/** The pino threshold for a LOG_LEVEL value (`info`, `debug`, …) or a Nest level. */
export function pinoLevelOf(level: string): PinoLevel {
  const nest = (level === 'info' ? 'log' : level) as NestLevel;
  return PINO_LEVEL[nest] ?? 'info';
}

/** The threshold of a set of enabled Nest levels: the most verbose among them. */
export function pinoLevelOfSet(levels: readonly string[]): PinoLevel {
  const enabled = NEST_LEVELS.filter((level) => levels.includes(level));
  const most = enabled.at(-1);
  return most ? PINO_LEVEL[most] : 'fatal';
}
