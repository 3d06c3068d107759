import { rateLimitWait } from './service-errors.js';

/** How an adapter waits out a rate limit. */
export interface RetryPolicy {
  /** Extra attempts after a rate limit (default 1). */
  retries: number;
  /** The longest `retry-after` honoured by waiting; longer ones fail at once (default 10 s). */
  maxWaitMs: number;
  /** How to wait; injected so tests never sleep. */
  sleep: (ms: number) => Promise<void>;
}

/** Waits with a timer (the production sleep). */
export const timerSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** The default policy: one retry after a `retry-after` of at most 10 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 1,
  maxWaitMs: 10_000,
  sleep: timerSleep,
};

/** Fills a partial policy from the defaults. */
export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return { ...DEFAULT_RETRY_POLICY, ...overrides };
}

/**
 * Runs `attempt`; when it fails with a coded rate limit whose `retry-after` fits the policy,
 * waits that long and tries again (up to `retries` times). Any other failure, or a wait too
 * long to hold a tool call for, is rethrown as it is.
 */
export async function withRateLimitRetry<T>(
  policy: RetryPolicy,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let tried = 0; ; tried += 1) {
    try {
      return await attempt();
    } catch (error) {
      const wait = rateLimitWait(error);
      const waitMs = wait === undefined ? undefined : wait * 1000;
      if (waitMs === undefined || waitMs > policy.maxWaitMs || tried >= policy.retries) throw error;
      await policy.sleep(waitMs);
    }
  }
}
