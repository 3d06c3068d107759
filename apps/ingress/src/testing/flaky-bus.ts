import type { Bus } from '@caravel/messaging';

/** A bus whose next publishes can be made to fail, as a bus that is down fails them. */
export interface FlakyBus {
  readonly bus: Bus;
  /** The next `count` publishes throw instead of reaching the bus. */
  failNextPublishes(count?: number): void;
}

export function flakyBus(inner: Bus): FlakyBus {
  let failures = 0;
  const bus = new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'publish' && typeof value === 'function') {
        return (...args: unknown[]): unknown => {
          if (failures > 0) {
            failures -= 1;
            return Promise.reject(new Error('the bus is down (test)'));
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
  return {
    bus,
    failNextPublishes(count = 1) {
      failures = count;
    },
  };
}
