import { randomUUID } from 'node:crypto';
import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { createMiddleware, tool, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import { hasAnyToolCall, lastAiMessage, withToolCalls } from './ai-messages.js';
import { exitStatusField } from './run-exit.state.js';
import { requireNonNegativeInteger } from './validate-options.js';

/** Parameters of {@link ensureNoEmptyMessageMiddleware}. */
export interface EnsureNoEmptyMessageOptions {
  /** The tool the agent replies to the user with (e.g. `slack_thread_reply`). */
  replyToolName: string;
  /** How many times one user message may be nudged before the run ends with `exit_no_reply`. */
  maxNudges?: number;
  /** Name of the synthetic tool the nudge calls (default `confirming_completion`). */
  nudgeToolName?: string;
}

const stateSchema = z.object({ exitStatus: exitStatusField });

function sinceLastUserMessage(messages: readonly BaseMessage[]): BaseMessage[] {
  const index = messages.findLastIndex((message) => HumanMessage.isInstance(message));
  return messages.slice(index + 1);
}

function repliedIn(messages: BaseMessage[], replyToolName: string): boolean {
  return messages.some(
    (message) =>
      message.type === 'ai' &&
      (message as { tool_calls?: { name: string }[] }).tool_calls?.some(
        (call) => call.name === replyToolName,
      ) === true,
  );
}

function nudgesIn(messages: BaseMessage[], nudgeToolName: string): number {
  return messages.filter((m) => ToolMessage.isInstance(m) && m.name === nudgeToolName).length;
}

function nudgeTool(name: string, replyToolName: string) {
  const text =
    `You ended your turn without a tool call and without replying to the user with ${replyToolName}. ` +
    `If the work is done, call ${replyToolName} with a short summary; otherwise carry on with your next tool call.`;
  return tool(() => text, {
    name,
    description: 'Added by the platform when a turn ends without a reply; you need not call it.',
    schema: z.object({}),
  });
}

/**
 * When the model stops without a tool call and the user's latest message has not been answered
 * through the reply tool, adds a synthetic `confirming_completion` call to that turn so the loop
 * goes on and the model is reminded to reply. Bounded: after `maxNudges` for one user message the
 * run ends with `exitStatus: 'exit_no_reply'` so the runner can tell the user.
 */
export function ensureNoEmptyMessageMiddleware(
  options: EnsureNoEmptyMessageOptions,
): AgentMiddleware {
  const { replyToolName } = options;
  const maxNudges = options.maxNudges ?? 2;
  requireNonNegativeInteger('max nudges', maxNudges);
  const nudgeToolName = options.nudgeToolName ?? 'confirming_completion';
  return createMiddleware({
    name: 'ensure-no-empty-message',
    stateSchema,
    tools: [nudgeTool(nudgeToolName, replyToolName)],
    beforeAgent: () => ({ exitStatus: undefined }),
    afterModel: (state) => {
      const message = lastAiMessage(state.messages);
      if (message === undefined || hasAnyToolCall(message)) return undefined;
      const turn = sinceLastUserMessage(state.messages);
      if (repliedIn(turn, replyToolName)) return undefined;
      if (nudgesIn(turn, nudgeToolName) >= maxNudges)
        return { exitStatus: 'exit_no_reply' as const };
      const id = `${message.id ?? randomUUID()}-nudge`;
      const call = { name: nudgeToolName, args: {}, id, type: 'tool_call' as const };
      return { messages: [withToolCalls(message, [call])] };
    },
  });
}
