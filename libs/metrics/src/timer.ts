/**
 * Starts a timer; the function it returns gives the seconds since. Read from `performance.now()`
 * (monotonic, sub-microsecond): no BigInts a reading, as `process.hrtime.bigint()` makes.
 */
export function startTimer(): () => number {
  const started = performance.now();
  return () => (performance.now() - started) / 1000;
}
