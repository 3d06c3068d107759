import { type CaravelTool } from '@caravel/tools';
import { toLangChainTools } from '@caravel/tools/langchain';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { textOf } from '../agent/step-recorder.js';

/** Model calls one chat answer may take (each a look at the code, then the answer). */
export const CHAT_RECURSION_LIMIT = 25;

/** One question to a read-only chat agent. */
export interface ChatQuestion {
  model: BaseChatModel;
  /** Only tools that look and answer (`chatTools` or `pullRequestChatTools`). */
  tools: CaravelTool[];
  systemPrompt: string;
  /** The opening message: the question, with whatever it was asked on. */
  question: string;
  author: string;
  /**
   * Stops the loop when it aborts (its server is shutting down and answered the asker already):
   * the model call in flight is aborted and no further call or tool starts; the answer rejects.
   */
  signal?: AbortSignal;
}

/** What the agent ended with: its last text, and how many tool calls (all reads) it made. */
export interface ChatAnswer {
  lastText: string;
  toolCalls: number;
}

/**
 * Runs the read-only chat loop once (LangChain's agent, no checkpoint: a chat keeps no state), for
 * the dashboard's chat and for a question asked on a pull request.
 */
export async function askChatAgent(ask: ChatQuestion): Promise<ChatAnswer> {
  const agent = createAgent({
    model: ask.model,
    tools: toLangChainTools(ask.tools),
    systemPrompt: ask.systemPrompt,
  });
  const result = (await agent.invoke(
    { messages: [new HumanMessage({ content: ask.question, name: nameOf(ask.author) })] },
    { recursionLimit: CHAT_RECURSION_LIMIT, ...(ask.signal ? { signal: ask.signal } : {}) },
  )) as { messages: BaseMessage[] };
  const answers = result.messages.filter((m): m is AIMessage => AIMessage.isInstance(m));
  const toolCalls = answers.reduce((sum, m) => sum + (m.tool_calls?.length ?? 0), 0);
  const last = answers.at(-1);
  return { lastText: last ? textOf(last) : '', toolCalls };
}

/** Providers accept only letters, digits, `_` and `-` in a message's name. */
function nameOf(author: string): string {
  return author.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'user';
}
