import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';

export { RunSpans } from './run-spans.js';

/**
 * Answers for the tool calls an interrupted run left unanswered (the run stopped between the
 * model's answer and its tools' results): every provider refuses a conversation whose tool calls
 * have no results, so the next run closes them before its own prompt.
 */
export function answersForInterruptedCalls(history: readonly BaseMessage[]): ToolMessage[] {
  const lastAi = history.findLastIndex((message) => AIMessage.isInstance(message));
  const last = history[lastAi];
  if (last === undefined || !AIMessage.isInstance(last)) return [];
  const answered = new Set(
    history
      .slice(lastAi + 1)
      .filter((message) => ToolMessage.isInstance(message))
      .map((message) => (message as ToolMessage).tool_call_id),
  );
  return (last.tool_calls ?? [])
    .filter((call) => call.id !== undefined && !answered.has(call.id))
    .map(
      (call) =>
        new ToolMessage({
          tool_call_id: call.id ?? '',
          name: call.name,
          status: 'error',
          content: 'Not finished: the run was interrupted by a new message before this call ended.',
        }),
    );
}

/** What a run that starts anew sends: the answers closing an interrupted run's calls, its prompt. */
export function openingMessages(
  closing: readonly ToolMessage[],
  promptId: string,
  prompt: string,
): BaseMessage[] {
  return [...closing, new HumanMessage({ id: promptId, content: prompt })];
}
