import {
  buildMiddlewareStack,
  foldHooks,
  graphRecursionLimitFor,
  type MiddlewareStackOptions,
} from '@caravel/middleware';
import { endsRun, type CaravelTool } from '@caravel/tools';
import { toLangChainTools } from '@caravel/tools/langchain';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import type { RunAgent } from './run-agent.js';

/** What one run's agent graph is made of. */
export interface RunGraphInputs {
  model: BaseChatModel;
  caravelTools: CaravelTool[];
  options: MiddlewareStackOptions;
  checkpointer: BaseCheckpointSaver;
  systemPrompt: string;
  maxModelCalls: number;
}

/** The tools the agent is given: those a middleware brings itself (the completion nudge) win. */
function agentTools(
  caravelTools: CaravelTool[],
  middleware: ReturnType<typeof buildMiddlewareStack>,
) {
  const owned = new Set(middleware.flatMap((m) => (m.tools ?? []).map((t) => t.name)));
  const tools = toLangChainTools(caravelTools.filter((tool) => !owned.has(tool.name)));
  for (const tool of tools) if (endsRun(tool.tool)) tool.returnDirect = true;
  return tools;
}

/** A run's LangChain agent over its middleware stack, and the graph's recursion limit. */
export function createRunGraph(inputs: RunGraphInputs): Pick<RunAgent, 'agent' | 'recursionLimit'> {
  // The hooks folded (one before-model node, the after-model ones in the model node): a step is
  // three checkpointed supersteps instead of nine.
  const middleware = foldHooks(buildMiddlewareStack(inputs.options));
  const agent = createAgent({
    model: inputs.model,
    tools: agentTools(inputs.caravelTools, middleware),
    middleware,
    checkpointer: inputs.checkpointer,
    systemPrompt: inputs.systemPrompt,
  });
  return { agent, recursionLimit: graphRecursionLimitFor(middleware, inputs.maxModelCalls) };
}
