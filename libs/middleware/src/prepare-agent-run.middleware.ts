import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import { describeError } from './error-inspection.js';
import { sandboxUnreachableNotice } from './errors.js';
import type { MiddlewareEventSink, RunPreparationPort } from './ports.js';
import { exitStatusField } from './run-exit.state.js';

export { sandboxUnreachableNotice };

/** Parameters of {@link prepareAgentRunMiddleware}. */
export interface PrepareAgentRunOptions {
  preparation: RunPreparationPort;
  /** True for the error the sandbox broker raises when the thread's sandbox cannot be reached. */
  isSandboxUnreachable: (error: unknown) => boolean;
  events: MiddlewareEventSink;
}

const stateSchema = z.object({
  exitStatus: exitStatusField,
  /** The user message whose turn checkpoint this thread took last (so a resume does not retake it). */
  turnCheckpointOf: z.string().optional(),
});

/**
 * Gets a run ready before its first model call: the thread's sandbox must answer (a sandbox that
 * may hold work is never silently replaced), and the worktree is snapshotted as the checkpoint
 * of the turn's user message, once per message (a resumed run does not take it again). An
 * unreachable sandbox ends the run with `exit_environment_error` and one message to the user in
 * the source channel; a failed snapshot is reported and the run goes on.
 */
export function prepareAgentRunMiddleware(options: PrepareAgentRunOptions): AgentMiddleware {
  const { preparation, events } = options;
  const stop = async (error: unknown) => {
    const notice = sandboxUnreachableNotice(error);
    await preparation
      .notifyUser(notice)
      .catch((failure: unknown) =>
        events.emit({ type: 'user_notice_failed', reason: describeError(failure) }),
      );
    return {
      jumpTo: 'end' as const,
      exitStatus: 'exit_environment_error' as const,
      messages: [new AIMessage({ content: notice })],
    };
  };
  return createMiddleware({
    name: 'prepare-agent-run',
    stateSchema,
    beforeAgent: {
      canJumpTo: ['end'],
      hook: async (state) => {
        try {
          await preparation.ensureSandbox();
        } catch (error) {
          if (options.isSandboxUnreachable(error)) return stop(error);
          throw error;
        }
        const turn = state.messages.findLast((m) => HumanMessage.isInstance(m))?.id;
        if (turn === undefined || turn === state.turnCheckpointOf) return undefined;
        try {
          await preparation.snapshotTurn(turn);
          return { turnCheckpointOf: turn };
        } catch (error) {
          if (options.isSandboxUnreachable(error)) return stop(error);
          events.emit({ type: 'turn_snapshot_failed', reason: describeError(error) });
          return undefined;
        }
      },
    },
  });
}
