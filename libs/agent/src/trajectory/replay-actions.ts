import type { Traj, TrajHistoryItem } from './traj.schema.js';

/** One model answer to replay, in order. */
export interface ReplayAction {
  /** The command that ran (`null` for files that did not record it). */
  action: string | null;
  thought: string;
  /** The raw model answer, as a replay model returns it. */
  response: string;
  /** The answer's tool calls under function calling; `null` otherwise. */
  toolCalls: Record<string, unknown>[] | null;
}

function textOf(content: TrajHistoryItem['content']): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (typeof part['text'] === 'string' ? part['text'] : '')).join('');
}

function isReplayable(item: TrajHistoryItem): boolean {
  return (
    item.role === 'assistant' && item.is_demo !== true && item.message_type !== 'demonstration'
  );
}

/**
 * The ordered answers a replay must give to reproduce a run: the assistant messages of the
 * history (demonstrations excluded). The history, not the trajectory, is the source: it holds
 * only accepted answers, while the trajectory also holds failed requery attempts, which
 * SWE-agent's files do not mark.
 */
export function extractReplayActions(traj: Traj): ReplayAction[] {
  return traj.history.filter(isReplayable).map((item) => ({
    action: item.action ?? null,
    thought: item.thought ?? '',
    response: textOf(item.content),
    toolCalls: item.tool_calls ?? null,
  }));
}
