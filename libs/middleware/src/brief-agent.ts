import type { CaravelTool } from '@caravel/tools';
import { toLangChainTools } from '@caravel/tools/langchain';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import { createAgent, type AgentMiddleware } from 'langchain';
import { graphRecursionLimitFor } from './recursion-limit.js';

/** An agent that works on one brief: its tools, and a run that answers the final messages. */
export interface BriefAgent {
  readonly tools: CaravelTool[];
  /** With `signal`, the loop stops when it aborts: no further step starts and the run rejects. */
  run(brief: string, options?: { signal?: AbortSignal }): Promise<BaseMessage[]>;
}

/** What a {@link briefAgent} is made of. */
export interface BriefAgentInputs {
  readonly model: BaseChatModel;
  readonly tools: CaravelTool[];
  readonly middleware: AgentMiddleware[];
  readonly systemPrompt: string;
  /** The model call limit the stack enforces: the graph's recursion limit is sized for it. */
  readonly modelCallLimit: number;
}

/**
 * LangChain's agent loop with `middleware`, run on a brief (one user message, no checkpoint),
 * its recursion limit sized by {@link graphRecursionLimitFor} so the stack's own call limit is
 * what ends a long run: the reviewer's and the analyzer's agents.
 */
export function briefAgent(inputs: BriefAgentInputs): BriefAgent {
  const { tools, middleware } = inputs;
  const agent = createAgent({
    model: inputs.model,
    tools: toLangChainTools(tools),
    middleware,
    systemPrompt: inputs.systemPrompt,
  });
  return {
    tools,
    async run(brief, options) {
      const state = (await agent.invoke(
        { messages: [{ role: 'user', content: brief }] },
        {
          recursionLimit: graphRecursionLimitFor(middleware, inputs.modelCallLimit),
          ...(options?.signal ? { signal: options.signal } : {}),
        },
      )) as { messages: BaseMessage[] };
      return state.messages;
    },
  };
}
