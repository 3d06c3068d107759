import { AppError } from '@caravel/errors';
import type { AIMessage } from '@langchain/core/messages';
import type { Command } from '@langchain/langgraph';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import type { Clock } from './ports.js';
import { requirePositiveInteger } from './validate-options.js';

/** Parameters of {@link modelCallTimeoutMiddleware}. */
export interface ModelCallTimeoutOptions {
  /** Longest one model call may take, in milliseconds. */
  timeoutMs: number;
  clock: Clock;
}

/** Settles with `work`, or rejects with a coded TIMEOUT when the clock fires first. */
async function raceTimer<T>(work: Promise<T>, ms: number, clock: Clock): Promise<T> {
  let cancel: () => void = () => undefined;
  const timeout = new Promise<never>((_, reject) => {
    cancel = clock.setTimer(ms, () =>
      reject(
        new AppError('TIMEOUT', `the model call did not answer within ${ms} ms`, {
          retryable: true,
          details: { timeoutMs: ms },
        }),
      ),
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    cancel();
  }
}

/**
 * Innermost: fails a model call that has not answered after `timeoutMs` with a retryable TIMEOUT
 * AppError, so a stalled provider connection escalates to the fallback instead of parking the run.
 * The provider client's own request timeout still closes the abandoned connection.
 */
export function modelCallTimeoutMiddleware(options: ModelCallTimeoutOptions): AgentMiddleware {
  requirePositiveInteger('model call timeout (ms)', options.timeoutMs);
  const { timeoutMs, clock } = options;
  return createMiddleware({
    name: 'model-call-timeout',
    wrapModelCall: (request, handler) =>
      raceTimer<AIMessage | Command>(Promise.resolve(handler(request)), timeoutMs, clock),
  });
}
