/** Where dispatch reads the time (sweeps, wakeups, admissions); tests inject a fixed one. */
export interface Clock {
  now(): Date;
}

/** Injection token of the dispatch {@link Clock}. */
export const DISPATCH_CLOCK = Symbol('caravel.dispatch-clock');

export const systemClock: Clock = { now: () => new Date() };
