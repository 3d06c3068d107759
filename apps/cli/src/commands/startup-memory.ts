import { setFlagsFromString } from 'node:v8';

/** V8's own growth factor: a scavenge that finds the young generation too small doubles it. */
const DEFAULT_GROWTH = 2;

/**
 * Runs `boot` with V8's young generation held at its initial size (1 MiB per semi-space), then
 * lets it grow again. Loading ~1,600 modules and booting the services otherwise grows it to its
 * maximum (16 MiB per semi-space, 32 MiB committed), which an idle `caravel start` keeps until
 * V8's memory reducer gives it back about a minute later: ~30 MiB of RSS for nothing, since what
 * a boot allocates is mostly code and metadata that live as long as the process. Runs that come
 * later grow it as they need.
 *
 * V8 reads the growth factor at each scavenge, so setting it in a running process takes effect at
 * once; `setFlags` is there for tests.
 */
export async function withSmallYoungGeneration<T>(
  boot: () => Promise<T>,
  setFlags: (flags: string) => void = setFlagsFromString,
): Promise<T> {
  setFlags('--semi-space-growth-factor=1');
  try {
    return await boot();
  } finally {
    setFlags(`--semi-space-growth-factor=${DEFAULT_GROWTH}`);
  }
}

/**
 * How much a WebAssembly function runs (V8's rough count of bytes executed) before V8 compiles
 * it again with its optimising compiler: ten times V8's default (1,800,000). PGlite is ~9 MB of
 * WebAssembly; at the default, the functions a boot's migrations and an idle host's queries touch
 * are optimised too, and their code and the compiler's memory stay: an idle `caravel start`
 * held ~22 MiB more RSS (mean of three alternated starts, 236 vs 214 MiB, 60 s after ready),
 * while at ten times the peak of embedded webhook deliveries did not fall (6,695 vs 6,041/s in
 * the same hour). What runs hot under load still reaches the optimised tier, a little later.
 */
export const WASM_TIERING_BUDGET = 18_000_000;

/** Sets the WebAssembly tiering budget before PGlite's module is compiled (see above). */
export function tierUpOnlyHotWebAssembly(
  setFlags: (flags: string) => void = setFlagsFromString,
): void {
  setFlags(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
}
