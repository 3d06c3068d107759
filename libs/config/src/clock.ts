/**
 * Where a service reads the time (signature freshness, sweeps, wakeups, admissions). One
 * interface and one token for every app, so a test moves the time of the whole platform it hosts
 * by injecting one fake under {@link CLOCK}.
 */
export interface Clock {
  now(): Date;
}

/** Injection token of the {@link Clock}. */
export const CLOCK = Symbol('caravel.clock');

/** The real time. */
export const systemClock: Clock = { now: () => new Date() };
