import { isAppError } from '@caravel/errors';
import { swegenError } from '../errors/swegen-errors.js';

/**
 * What an agent session's failure means for SWE-gen: a model rate limit aborts the whole command
 * (thrown as `rate_limited`, its own exit); anything else ended only this session, and its message
 * is returned for the record.
 */
export function sessionFailure(failure: unknown): string {
  if (isAppError(failure) && failure.code === 'RATE_LIMITED') {
    throw swegenError(
      'rate_limited',
      `the model is rate limited: ${failure.message}; swap the token or wait, then rerun`,
    );
  }
  return failure instanceof Error ? failure.message : String(failure);
}
