import { sql, type RawBuilder } from 'kysely';

/** `now() + <ms> milliseconds`, computed by the database so every replica shares one clock. */
export function nowPlusMs(ms: number): RawBuilder<Date> {
  return sql<Date>`now() + (${Math.max(0, Math.round(ms))}::double precision * interval '1 millisecond')`;
}

/** BIGINT columns arrive as strings or numbers depending on the driver's parsers. */
export function toSequence(value: string | number | bigint): number {
  return Number(value);
}

/** The identity of one message for one consumer. */
export interface DeliveryKey {
  stream: string;
  durable: string;
  sequence: number;
}
