/** The logging a bus adapter needs; Nest's `Logger` and `console` both fit. */
export interface BusLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Drops informational lines, keeps warnings and errors on stderr. */
export const quietConsoleLogger: BusLogger = {
  log: () => undefined,
  warn: (message) => console.warn(message),
  error: (message) => console.error(message),
};

/** Drops everything (tests that provoke failures on purpose). */
export const silentLogger: BusLogger = {
  log: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
