import { AppError } from '@caravel/errors';

/** PostgreSQL type OIDs both drivers parse the same way. */
export const PG_OID = { int8: 20 } as const;

/**
 * BIGINT as a JS number, for both drivers. Caravel's bigints are sequences and counters far below
 * 2^53; a larger value fails loudly instead of silently losing precision.
 */
export function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new AppError('INTERNAL', `BIGINT value ${text} does not fit a JS number safely`);
  }
  return value;
}
