import { AIMessage } from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import { describeError, findAppError, isControlFlow } from './error-inspection.js';
import { requirePositiveInteger } from './validate-options.js';
import type { InfrastructureFailureClassifier, MiddlewareEventSink } from './ports.js';
import { exitStatusField } from './run-exit.state.js';
import { errorToolMessage } from './tool-messages.js';

/** Parameters of {@link sandboxCircuitBreakerMiddleware}. */
export interface SandboxCircuitBreakerOptions {
  /** Consecutive infrastructure failures that open the breaker. */
  threshold: number;
  /** Which thrown errors count (default: codes DEPENDENCY_UNAVAILABLE and TIMEOUT). */
  classify?: InfrastructureFailureClassifier;
  events: MiddlewareEventSink;
}

/** Counts sandbox outages and timeouts: the codes the sandbox broker raises for them. */
export const defaultInfrastructureClassifier: InfrastructureFailureClassifier = (error) => {
  const code = findAppError(error)?.code;
  return code === 'DEPENDENCY_UNAVAILABLE' || code === 'TIMEOUT';
};

const stateSchema = z.object({ exitStatus: exitStatusField });

/**
 * After K consecutive infrastructure failures of tools, stops calling tools (each further call is
 * answered with an error) and ends the run before the next model call with
 * `exitStatus: 'exit_environment_error'`, instead of letting the model loop against a dead sandbox.
 * Any tool call that reaches the sandbox (success or an ordinary tool error) resets the count.
 */
export function sandboxCircuitBreakerMiddleware(
  options: SandboxCircuitBreakerOptions,
): AgentMiddleware {
  requirePositiveInteger('circuit breaker threshold', options.threshold);
  const { threshold, events } = options;
  const classify = options.classify ?? defaultInfrastructureClassifier;
  // Per-run memory: parallel tool calls of one step must see each other's failures at once.
  let consecutive = 0;
  let lastError = '';
  let open = false;

  const recordFailure = (error: unknown): void => {
    consecutive += 1;
    lastError = describeError(error);
    if (open || consecutive < threshold) return;
    open = true;
    events.emit({ type: 'circuit_breaker_open', consecutiveFailures: consecutive, lastError });
  };

  return createMiddleware({
    name: 'sandbox-circuit-breaker',
    stateSchema,
    beforeAgent: () => {
      consecutive = 0;
      lastError = '';
      open = false;
      return { exitStatus: undefined };
    },
    wrapToolCall: async (request, handler) => {
      if (open) {
        return errorToolMessage(
          request.toolCall,
          `Error: ${request.toolCall.name} was not run: the sandbox failed ${consecutive} times in a row; the run is stopping.`,
        );
      }
      try {
        const result = await handler(request);
        consecutive = 0;
        return result;
      } catch (error) {
        if (isControlFlow(error)) throw error;
        if (classify(error)) recordFailure(error);
        else consecutive = 0;
        throw error;
      }
    },
    beforeModel: {
      canJumpTo: ['end'],
      hook: () => {
        if (!open) return undefined;
        const text =
          `Stopped: the sandbox failed ${consecutive} times in a row (last error: ${lastError}). ` +
          'This is an environment problem, not a problem with the task; retry once the sandbox is healthy.';
        return {
          jumpTo: 'end',
          exitStatus: 'exit_environment_error' as const,
          messages: [new AIMessage({ content: text })],
        };
      },
    },
  });
}
