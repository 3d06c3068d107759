import { AppError, isAppError } from '@caravel/errors';

/**
 * The `details.reason` of a broker's refusal while it shuts down (it crosses the bus): the one
 * the bus transport also answers a request with when its server drains before it was answered.
 */
const BROKER_STOPPING = 'shutting_down';

/**
 * What a sandbox broker answers while it shuts down, at once rather than after a timeout: a
 * request that arrives then, and a command its shutdown stopped. Retryable
 * (DEPENDENCY_UNAVAILABLE): another broker, or this one once restarted, answers the next try, and
 * the thread's sandbox and its work are kept.
 */
export function brokerStopping(what: string): AppError {
  return new AppError(
    'DEPENDENCY_UNAVAILABLE',
    `the sandbox broker is shutting down: ${what} was not done; ask again (another broker, or this one once restarted, answers; the sandbox and its work are kept)`,
    { retryable: true, details: { reason: BROKER_STOPPING } },
  );
}

/** Whether `error` is a broker's refusal because it is shutting down. */
export function isBrokerStopping(error: unknown): boolean {
  return (
    isAppError(error) &&
    error.code === 'DEPENDENCY_UNAVAILABLE' &&
    error.details['reason'] === BROKER_STOPPING
  );
}
