import { renderTodos, type ReplyChannel, type TodoItem } from '@caravel/tools';
import type { RunWorkEvents } from './subagents.js';

/**
 * The run's todo list as the agent last wrote it (`write_todos`), so that what it says in the
 * conversation it was asked in shows where the work stands, as the dashboard's thread view does:
 * each reply ends with the list while it has items.
 */
export class RunTodoList {
  private latest: readonly TodoItem[] = [];

  /** `events`, keeping each list it publishes. */
  recording(events: RunWorkEvents): RunWorkEvents {
    return {
      subagentSteps: (subagentRunId) => events.subagentSteps(subagentRunId),
      subagent: (event) => events.subagent(event),
      todos: async (todos, toolCallId) => {
        await events.todos(todos, toolCallId);
        this.latest = [...todos];
      },
    };
  }

  /** `channel`, its replies followed by the list. */
  replies(channel: ReplyChannel): ReplyChannel {
    return { reply: (text) => channel.reply(this.under(text)) };
  }

  /** `text` with the list below it (as it is when there is none). */
  under(text: string): string {
    if (this.latest.length === 0) return text;
    const done = this.latest.filter((todo) => todo.status === 'completed').length;
    const lines = renderTodos(this.latest)
      .split('\n')
      .map((line) => `- ${line}`);
    return `${text}\n\nTodos (${done} of ${this.latest.length} done):\n${lines.join('\n')}`;
  }
}
