import { findAppError } from './error-inspection.js';

const RETRYABLE_STATUS = new Set([408, 409, 429]);
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
]);

function statusOf(error: object): number | undefined {
  const candidate =
    (error as { status?: unknown; statusCode?: unknown }).status ??
    (error as { statusCode?: unknown }).statusCode;
  return typeof candidate === 'number' ? candidate : undefined;
}

function isRetryableShape(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const status = statusOf(error);
  if (status !== undefined) return RETRYABLE_STATUS.has(status) || status >= 500;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code);
}

/**
 * Whether a failed model call is worth one more try elsewhere: a coded error that says so, a
 * provider HTTP status of 408/409/429/5xx, or a dropped connection, anywhere in the cause chain.
 */
export function isRetryableModelError(error: unknown): boolean {
  const coded = findAppError(error);
  if (coded) return coded.retryable;
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current !== undefined && current !== null; depth++) {
    if (isRetryableShape(current)) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}
