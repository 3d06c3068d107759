import type { Sandbox } from '@caravel/sandbox';
import { ToolSandboxAdapter } from '@caravel/sandbox';
import { defineTool, resolveToolOptions, workspaceTools, type CaravelTool } from '@caravel/tools';
import { toLangChainTools } from '@caravel/tools/langchain';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { createAgent } from 'langchain';
import { z } from 'zod';

/**
 * The tools of a SWE-gen agent session in `sandbox`: the workspace tools, the session's own
 * (`extra`), and `finish`, which ends the session (`finishWhen` says when the agent should call it).
 */
export function sessionTools(
  sandbox: Sandbox,
  extra: readonly CaravelTool[],
  finishWhen: string,
): CaravelTool[] {
  const finish = defineTool({
    name: 'finish',
    description: `End the session ${finishWhen}.`,
    effect: 'finish',
    input: z.strictObject({ summary: z.string().optional() }),
    run: () => Promise.resolve('finished'),
    observe: (text: string) => text,
  });
  const workspace = workspaceTools(new ToolSandboxAdapter(sandbox), resolveToolOptions({}));
  return [...workspace, ...extra, finish];
}

/** A LangChain agent over the session's tools whose `finish` call ends its run at once. */
export function sessionAgent(model: BaseChatModel, tools: CaravelTool[], systemPrompt: string) {
  const langChainTools = toLangChainTools(tools);
  for (const tool of langChainTools) if (tool.tool.effect === 'finish') tool.returnDirect = true;
  return createAgent({ model, tools: langChainTools, systemPrompt });
}
