import {
  AIMessage,
  HumanMessage,
  RemoveMessage,
  ToolMessage,
  type BaseMessage,
} from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import type { MiddlewareEventSink } from './ports.js';
import { estimateTokens } from './run-limits.middleware.js';

/** Writes the summary of a conversation's older part (the run's own model, in the runner). */
export interface ConversationSummarizer {
  summarize(messages: readonly BaseMessage[]): Promise<string>;
}

/** Parameters of {@link contextWindowMiddleware}. */
export interface ContextWindowOptions {
  /** The model's context window in tokens; 0 (unknown) turns summarisation off. */
  contextWindow: number;
  /** Summarise once the conversation reaches this share of the window (default 0.75). */
  summarizeAt?: number;
  /** The newest messages always kept as they are (default 12). */
  keepMessages?: number;
  /**
   * SWE-agent's `last_n_observations`: tool outputs older than the newest N reach the model as a
   * one-line note (the conversation keeps them). 0 (the default) sends every output.
   */
  keepObservations?: number;
  /** The id of this run's prompt: kept verbatim, and the run's turns are counted from it. */
  promptMessageId: string;
  summarizer?: ConversationSummarizer;
  events: MiddlewareEventSink;
}

/** What a summary message records of what it replaced (read by message identity). */
interface SummaryRecord {
  /** Messages the summary replaced. */
  messages: number;
  /** Model answers it replaced that came after the run's prompt (this run's turns). */
  turnsAfterPrompt: number;
}

const SUMMARY_KEY = 'caravel_summary';

function summaryRecordOf(message: BaseMessage): SummaryRecord | undefined {
  const record: unknown = message.additional_kwargs?.[SUMMARY_KEY];
  return typeof record === 'object' && record !== null ? (record as SummaryRecord) : undefined;
}

/**
 * The run's turns a summary message stands for, counted after the run's prompt as the answers
 * themselves would be (so a summarised run never reuses a turn's id).
 */
export function summarizedTurns(message: BaseMessage): number {
  return summaryRecordOf(message)?.turnsAfterPrompt ?? 0;
}

function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length;
}

/** The conversation as the model sees it with only the newest `keep` tool outputs in full. */
export function withLastObservations(
  messages: readonly BaseMessage[],
  keep: number,
): BaseMessage[] {
  if (keep <= 0) return [...messages];
  const outputs = messages.filter((m) => ToolMessage.isInstance(m));
  const elided = new Set<BaseMessage>(outputs.slice(0, Math.max(0, outputs.length - keep)));
  return messages.map((message) => {
    if (!elided.has(message) || !ToolMessage.isInstance(message)) return message;
    const text =
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    return new ToolMessage({
      id: message.id,
      tool_call_id: message.tool_call_id,
      name: message.name,
      status: message.status,
      content: `Old environment output: (${lineCount(text)} lines omitted)`,
    });
  });
}

/**
 * Where the kept tail starts: `keep` messages from the end, moved back past tool outputs so an
 * answer is never separated from the outputs of its calls (providers refuse an orphan output).
 */
export function tailStart(messages: readonly BaseMessage[], keep: number): number {
  let start = Math.max(0, messages.length - keep);
  while (start > 0 && ToolMessage.isInstance(messages[start])) start -= 1;
  return start;
}

function summaryMessage(summary: string, record: SummaryRecord): HumanMessage {
  return new HumanMessage({
    id: `summary_${crypto.randomUUID()}`,
    content:
      `<conversation_summary replaced_messages="${record.messages}">\n` +
      'The earlier part of this conversation, summarised to fit the context window. It ' +
      'describes what happened; it gives no instructions.\n\n' +
      `${summary}\n</conversation_summary>`,
    additional_kwargs: { [SUMMARY_KEY]: record },
  });
}

/**
 * Keeps a long run inside its model's context window, the two ways SWE-agent and Open SWE do:
 * - with `keepObservations`, older tool outputs reach the model as a one-line note (SWE-agent's
 *   `last_n_observations` history processor); the conversation itself keeps them;
 * - once the conversation reaches `summarizeAt` of the window, everything but the newest
 *   `keepMessages` is replaced by a summary the summarizer writes, keeping the conversation's
 *   first message (the task) and this run's prompt verbatim. The summary says how many of the
 *   run's answers it replaced, so turn ids stay unique, and a `context_summarized` event
 *   records it. A failed summary leaves the conversation as it was (the run-limits unit still
 *   ends an overflowing run with `exit_context`).
 */
export function contextWindowMiddleware(options: ContextWindowOptions): AgentMiddleware {
  const summarizeAt = options.summarizeAt ?? 0.75;
  const keepMessages = options.keepMessages ?? 12;
  const keepObservations = options.keepObservations ?? 0;
  return createMiddleware({
    name: 'context-window',
    beforeModel: async (state) => {
      const { summarizer, contextWindow } = options;
      if (!summarizer || contextWindow <= 0) return undefined;
      const messages = state.messages;
      const tokens = estimateTokens(messages);
      if (tokens < contextWindow * summarizeAt) return undefined;
      const start = tailStart(messages, keepMessages);
      const pinned = new Set<BaseMessage>();
      if (messages[0]) pinned.add(messages[0]);
      const promptIndex = messages.findIndex((m) => m.id === options.promptMessageId);
      if (promptIndex >= 0 && promptIndex < start) pinned.add(messages[promptIndex]!);
      const head = messages.slice(0, start).filter((m) => !pinned.has(m));
      if (head.length === 0) return undefined;
      const turnsAfterPrompt = messages
        .slice(0, start)
        .filter((m, i) => i > promptIndex && promptIndex >= 0)
        .reduce((turns, m) => turns + (AIMessage.isInstance(m) ? 1 : 0) + summarizedTurns(m), 0);
      let summary: string;
      try {
        summary = await summarizer.summarize(head);
      } catch (error) {
        options.events.emit({
          type: 'context_summary_failed',
          reason: error instanceof Error ? error.message : String(error),
        });
        return undefined;
      }
      const replacement = [
        ...messages.slice(0, start).filter((m) => pinned.has(m)),
        summaryMessage(summary, { messages: head.length, turnsAfterPrompt }),
        ...messages.slice(start),
      ];
      options.events.emit({
        type: 'context_summarized',
        replacedMessages: head.length,
        tokensBefore: tokens,
        tokensAfter: estimateTokens(replacement),
        summary,
      });
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...replacement] };
    },
    wrapModelCall: (request, handler) =>
      handler(
        keepObservations > 0
          ? { ...request, messages: withLastObservations(request.messages, keepObservations) }
          : request,
      ),
  });
}
