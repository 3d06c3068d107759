import { toModelError } from '@caravel/agent';
import type { AppError } from '@caravel/errors';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { describeError, findAppError, isControlFlow } from './error-inspection.js';
import type { Clock, MiddlewareEventSink } from './ports.js';

/** Parameters of {@link modelRetryMiddleware}. */
export interface ModelRetryOptions {
  /** The provider named in errors (e.g. `anthropic`). */
  provider: string;
  /** Retries after the first failed call (0: none). */
  maxRetries: number;
  /** First backoff when the provider gave no `retry-after`; doubled on each retry. */
  baseDelayMs?: number;
  /** The longest single wait, `retry-after` included (default 2 minutes, as SWE-agent's). */
  maxDelayMs?: number;
  clock: Clock;
  events: MiddlewareEventSink;
}

const DEFAULT_BASE_DELAY_MS = 1000;
const DEFAULT_MAX_DELAY_MS = 120_000;

function sleep(ms: number, clock: Clock): Promise<void> {
  return new Promise((resolve) => clock.setTimer(ms, resolve));
}

/** The wait before retry `attempt` (0-based): the provider's `retry-after` when it gave one. */
export function retryDelayMs(
  error: AppError,
  attempt: number,
  base = DEFAULT_BASE_DELAY_MS,
  max = DEFAULT_MAX_DELAY_MS,
): number {
  const retryAfter = error.details['retryAfterSeconds'];
  const asked =
    typeof retryAfter === 'number' && Number.isFinite(retryAfter) ? retryAfter * 1000 : null;
  return Math.min(max, Math.max(0, asked ?? base * 2 ** attempt));
}

/**
 * Retries a model call that failed for a reason worth retrying (429, 408/409, 5xx, a dropped
 * connection, a timeout), waiting what the provider's `retry-after` asks or an exponential
 * backoff, up to `maxRetries` times. Every failure leaves as a coded error (RATE_LIMITED,
 * DEPENDENCY_UNAVAILABLE, TIMEOUT, CONFIG_INVALID for a refused key...), so the fallback above it
 * can take over and the runner can end the run with `exit_api`. Each wait is reported.
 */
export function modelRetryMiddleware(options: ModelRetryOptions): AgentMiddleware {
  const { provider, maxRetries, clock, events } = options;
  return createMiddleware({
    name: 'model-retry',
    wrapModelCall: async (request, handler) => {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await handler(request);
        } catch (error) {
          if (isControlFlow(error)) throw error;
          const coded = toModelError(findAppError(error) ?? error, provider, clock.nowMs());
          if (!coded.retryable || attempt >= maxRetries) throw coded;
          const waitMs = retryDelayMs(coded, attempt, options.baseDelayMs, options.maxDelayMs);
          events.emit({
            type: 'model_retry',
            attempt: attempt + 1,
            waitMs,
            reason: describeError(coded),
          });
          await sleep(waitMs, clock);
        }
      }
    },
  });
}
