/** Where ingress reads the time (signature freshness); tests inject a fixed one. */
export interface Clock {
  now(): Date;
}

/** Injection token of the ingress {@link Clock}. */
export const CLOCK = Symbol('caravel.ingress-clock');

export const systemClock: Clock = { now: () => new Date() };
