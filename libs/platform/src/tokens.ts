/** Injection token of the process's `Bus`. */
export const BUS = Symbol('caravel.bus');
/** Injection token of the process's `Database`. */
export const DATABASE = Symbol('caravel.database');
/** Injection token of the `PlatformRuntime` (mode, name, the services hosted). */
export const RUNTIME = Symbol('caravel.runtime');
