import type { ConsumerOptions } from '../bus.port.js';

/**
 * The second argument of `@EventPattern(definition.pattern, extras)`: which durable consumer the
 * handler belongs to and how it consumes. `durable` is required; the rest have library defaults.
 */
export type ConsumerExtras = ConsumerOptions;

export function isConsumerExtras(value: unknown): value is ConsumerExtras {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { durable?: unknown }).durable === 'string' &&
    (value as { durable: string }).durable.length > 0
  );
}
