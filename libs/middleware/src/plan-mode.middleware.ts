import { HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { Command } from '@langchain/langgraph';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import type { MiddlewareEventSink } from './ports.js';
import { errorToolMessage } from './tool-messages.js';

/** How a run starts: planning (mutating tools hidden) or editing. */
export type AgentMode = 'plan' | 'edit';

/** Parameters of {@link planModeMiddleware}. */
export interface PlanModeOptions {
  /** The mode each run starts in (a plan still awaiting approval keeps the thread planning). */
  initialMode: AgentMode;
  /** Tools hidden from the model while planning: file writes, the shell, commits, pull requests. */
  mutatingTools: readonly string[];
  events: MiddlewareEventSink;
  /** Default `enter_plan_mode`. */
  enterToolName?: string;
  /** Default `approve_plan`. */
  approveToolName?: string;
}

const stateSchema = z.object({
  /** True while the thread is planning: mutating tools are neither offered nor run. */
  planMode: z.boolean().optional(),
  /** True from `enter_plan_mode` until the owner approves: later runs keep planning. */
  planAwaitingApproval: z.boolean().optional(),
});

const normalise = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

function textOf(message: BaseMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  return content
    .map((part) => ('text' in part && typeof part.text === 'string' ? part.text : ''))
    .join(' ');
}

/** Whether `quote` is words a user actually wrote in this conversation. */
function userAskedFor(messages: readonly BaseMessage[], quote: unknown): boolean {
  if (typeof quote !== 'string' || normalise(quote).length < 3) return false;
  const wanted = normalise(quote);
  return messages.some((m) => HumanMessage.isInstance(m) && normalise(textOf(m)).includes(wanted));
}

function succeeded(result: ToolMessage | Command): result is ToolMessage {
  return ToolMessage.isInstance(result) && result.status !== 'error';
}

/**
 * Plan mode. `enter_plan_mode` switches it on only when its `user_request` quotes a user message
 * of the conversation (the user asked for a plan, not the model); while it is on, the mutating
 * tools are removed from every model call and refused if named anyway; a successful
 * `approve_plan` (the tool checks who approves) switches it off. The state lives in the graph,
 * so it survives checkpoints, resumes and later runs of the thread until the plan is approved.
 */
export function planModeMiddleware(options: PlanModeOptions): AgentMiddleware {
  const mutating = new Set(options.mutatingTools);
  const enter = options.enterToolName ?? 'enter_plan_mode';
  const approve = options.approveToolName ?? 'approve_plan';
  return createMiddleware({
    name: 'plan-mode',
    stateSchema,
    beforeAgent: (state) => ({
      planMode: options.initialMode === 'plan' || state.planAwaitingApproval === true,
    }),
    wrapModelCall: (request, handler) => {
      if (request.state.planMode !== true) return handler(request);
      return handler({
        ...request,
        tools: request.tools.filter((t) => !mutating.has(String(t.name))),
      });
    },
    wrapToolCall: async (request, handler) => {
      const { toolCall, state } = request;
      if (state.planMode === true && mutating.has(toolCall.name)) {
        const reason = 'plan mode is on until the plan is approved';
        options.events.emit({ type: 'tool_hidden_call_refused', tool: toolCall.name, reason });
        return errorToolMessage(
          toolCall,
          `Error: ${toolCall.name} was not run: ${reason}. Save the plan with save_plan and wait for approval.`,
        );
      }
      if (toolCall.name === enter && !userAskedFor(state.messages, toolCall.args['user_request'])) {
        return errorToolMessage(
          toolCall,
          'Error: plan mode starts only when the user explicitly asks for a plan: pass their words, quoted exactly, as user_request.',
        );
      }
      if (toolCall.name === approve && state.planMode !== true) {
        return errorToolMessage(
          toolCall,
          'Error: there is no plan awaiting approval: plan mode is off.',
        );
      }
      if (toolCall.name !== enter && toolCall.name !== approve) return handler(request);
      const result = await handler(request);
      if (!succeeded(result)) return result;
      const active = toolCall.name === enter;
      options.events.emit({ type: 'plan_mode_changed', active, by: toolCall.name });
      return new Command({
        update: { planMode: active, planAwaitingApproval: active, messages: [result] },
      });
    },
  });
}
