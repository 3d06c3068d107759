import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import { createAgent, tool, type AgentMiddleware } from 'langchain';
import { z } from 'zod';
import { graphRecursionLimitFor } from '../recursion-limit.js';
import type { ScriptedChatModel } from './scripted-chat-model.js';

/** Runs a real LangChain agent over a scripted model and returns the final state. */
export async function runAgent(
  model: ScriptedChatModel,
  tools: Parameters<typeof createAgent>[0]['tools'],
  middleware: AgentMiddleware[],
  prompt = 'do the task',
): Promise<{ messages: BaseMessage[]; exitStatus?: string } & Record<string, unknown>> {
  const agent = createAgent({ model, tools, middleware });
  const recursionLimit = graphRecursionLimitFor(middleware, 50);
  const input = { messages: [{ role: 'user', content: prompt }] };
  const result = (await agent.invoke(input, { recursionLimit })) as {
    messages: BaseMessage[];
  } & Record<string, unknown>;
  return result;
}

/** The ToolMessages of a conversation. */
export function toolMessages(messages: BaseMessage[]): ToolMessage[] {
  return messages.filter((m): m is ToolMessage => m.type === 'tool');
}

/** A tool that records the arguments it received and answers `ok`. */
export function recordingTool(name: string, schema: z.ZodObject = z.object({}).passthrough()) {
  const received: unknown[] = [];
  const t = tool(
    async (args: unknown) => {
      received.push(args);
      return 'ok';
    },
    { name, description: `${name} (test)`, schema },
  );
  return { tool: t, received };
}

/** A tool that throws the given error every time it runs. */
export function throwingTool(name: string, error: Error) {
  return tool(
    async () => {
      throw error;
    },
    { name, description: `${name} (test)`, schema: z.object({}).passthrough() },
  );
}
