import { AIMessage } from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import { exitStatusField } from './run-exit.state.js';
import { requirePositiveInteger } from './validate-options.js';

/** Parameters of {@link modelCallLimitMiddleware}. */
export interface ModelCallLimitOptions {
  /** Most model calls one run may make. */
  limit: number;
}

const stateSchema = z.object({
  modelCallsThisRun: z.number().default(0),
  exitStatus: exitStatusField,
});

/**
 * Ends the run before a model call that would exceed the limit, with a final message saying so
 * and `exitStatus: 'exit_model_call_limit'`, instead of raising a recursion error mid-step.
 * The count is per run: it restarts when a follow-up message starts the next run.
 */
export function modelCallLimitMiddleware(options: ModelCallLimitOptions): AgentMiddleware {
  requirePositiveInteger('model call limit', options.limit);
  const { limit } = options;
  return createMiddleware({
    name: 'model-call-limit',
    stateSchema,
    beforeAgent: () => ({ modelCallsThisRun: 0, exitStatus: undefined }),
    beforeModel: {
      canJumpTo: ['end'],
      hook: (state) => {
        if (state.modelCallsThisRun < limit) return undefined;
        const text =
          `Stopped: this run used its limit of ${limit} model calls before finishing. ` +
          'Work so far is kept; send a follow-up message to continue.';
        return {
          jumpTo: 'end',
          exitStatus: 'exit_model_call_limit' as const,
          messages: [new AIMessage({ content: text })],
        };
      },
    },
    afterModel: (state) => ({ modelCallsThisRun: state.modelCallsThisRun + 1 }),
  });
}
