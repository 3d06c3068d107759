import { AppError } from '@caravel/errors';
import type { ConsumerOptions } from '../bus.port.js';
import { DEFAULT_BACKOFF_MS } from './backoff-schedule.js';

/** Consumer options with every default filled in. */
export interface ResolvedConsumerOptions {
  durable: string;
  ordered: boolean;
  ackWaitMs: number;
  maxDeliver: number;
  backoffMs: readonly number[];
  concurrency: number;
  outageHorizonMs: number;
  outageMaxDelayMs: number;
}

export const DEFAULT_ACK_WAIT_MS = 30_000;
export const DEFAULT_MAX_DELIVER = 5;
export const DEFAULT_CONCURRENCY = 8;
/** An outage keeps a message for up to a day after it was stored. */
export const DEFAULT_OUTAGE_HORIZON_MS = 24 * 3_600_000;
/** During an outage a message (and the consumer's probe) is tried at least every 30 s. */
export const DEFAULT_OUTAGE_MAX_DELAY_MS = 30_000;

const DURABLE_NAME = /^[A-Za-z0-9_-]+$/;

function positiveInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new AppError('CONFIG_INVALID', `${what} must be a positive integer, got ${value}`);
  }
  return value;
}

/** Fills in the library defaults and rejects options no adapter could honour. */
export function resolveConsumerOptions(options: ConsumerOptions): ResolvedConsumerOptions {
  if (!DURABLE_NAME.test(options.durable)) {
    throw new AppError(
      'CONFIG_INVALID',
      `durable consumer name "${options.durable}" may only hold letters, digits, "-" and "_"`,
    );
  }
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  if (backoffMs.some((ms) => !Number.isFinite(ms) || ms < 0)) {
    throw new AppError(
      'CONFIG_INVALID',
      `backoffMs entries must be non-negative, got [${backoffMs.join(', ')}]`,
    );
  }
  return {
    durable: options.durable,
    ordered: options.ordered ?? false,
    ackWaitMs: positiveInteger(options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS, 'ackWaitMs'),
    maxDeliver: positiveInteger(options.maxDeliver ?? DEFAULT_MAX_DELIVER, 'maxDeliver'),
    backoffMs,
    concurrency: positiveInteger(options.concurrency ?? DEFAULT_CONCURRENCY, 'concurrency'),
    outageHorizonMs: positiveInteger(
      options.outageHorizonMs ?? DEFAULT_OUTAGE_HORIZON_MS,
      'outageHorizonMs',
    ),
    outageMaxDelayMs: positiveInteger(
      options.outageMaxDelayMs ?? DEFAULT_OUTAGE_MAX_DELAY_MS,
      'outageMaxDelayMs',
    ),
  };
}
