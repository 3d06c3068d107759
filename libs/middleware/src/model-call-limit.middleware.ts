import { AIMessage } from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import { exitStatusField } from './run-exit.state.js';
import { answersThisRun } from './run-turns.js';
import { requirePositiveInteger } from './validate-options.js';

/** Parameters of {@link modelCallLimitMiddleware}. */
export interface ModelCallLimitOptions {
  /** Most model calls one run may make. */
  limit: number;
  /**
   * The run's prompt: its calls are the answers after it. Without one every answer counts (an
   * agent that runs one prompt, as the reviewer's).
   */
  promptMessageId?: string;
}

const stateSchema = z.object({ exitStatus: exitStatusField });

/**
 * Ends the run before a model call that would exceed the limit, with a final message saying so
 * and `exitStatus: 'exit_model_call_limit'`, instead of raising a recursion error mid-step.
 * The count is per run (the answers after the run's prompt): it restarts when a follow-up message
 * starts the next run.
 */
export function modelCallLimitMiddleware(options: ModelCallLimitOptions): AgentMiddleware {
  requirePositiveInteger('model call limit', options.limit);
  const { limit, promptMessageId } = options;
  return createMiddleware({
    name: 'model-call-limit',
    stateSchema,
    beforeAgent: () => ({ exitStatus: undefined }),
    beforeModel: {
      canJumpTo: ['end'],
      hook: (state) => {
        if (answersThisRun(state.messages, promptMessageId) < limit) return undefined;
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
  });
}
