import { todoItem } from '@caravel/contracts';
import { z } from 'zod';
import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { TodoItem, TodoListPort } from './agent-work.ports.js';

/** The name of the todo-list tool. */
export const WRITE_TODOS_TOOL_NAME = 'write_todos';

/** Most items one list may hold. */
export const MAX_TODOS = 100;

/** What `write_todos` answers. */
export interface WriteTodosOutput {
  todos: TodoItem[];
}

const MARKS: Record<TodoItem['status'], string> = {
  pending: '[ ]',
  in_progress: '[~]',
  completed: '[x]',
};

/** The list as the model and people read it: one line per item, its status as a mark. */
export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return '(empty)';
  return todos.map((todo) => `${MARKS[todo.status]} ${todo.content}`).join('\n');
}

const todosInput = z.strictObject({
  todos: z
    .array(todoItem)
    .max(MAX_TODOS)
    .refine((todos) => todos.filter((todo) => todo.status === 'in_progress').length <= 1, {
      message: 'at most one item may be in_progress at a time',
    })
    .describe(
      'The whole list, every time (it replaces the previous one): each item has content and a ' +
        'status, pending, in_progress or completed.',
    ),
});

/**
 * `write_todos`: the agent keeps its plan of work as a todo list (deepagents' tool). Each call
 * writes the whole list; the runner publishes it (`evt.run.todos`) for the thread view. A list
 * that breaks the rules (an unknown status, an empty item, two items in progress) is a
 * `BAD_REQUEST` the model reads and fixes; nothing is published then.
 */
export function writeTodosTool(port: TodoListPort): CaravelTool<WriteTodosOutput> {
  return defineTool({
    name: WRITE_TODOS_TOOL_NAME,
    description:
      'Keep a todo list for a task of several steps: write the whole list each time, with one ' +
      'item in_progress while you work on it and items completed as soon as they are done. The ' +
      'people following the thread see it. Skip it for a task of one or two steps.',
    effect: 'control',
    input: todosInput,
    run: async (input, call) => {
      await port.publish(input.todos, call.callId);
      return { todos: input.todos };
    },
    observe: (output) => `Todo list updated:\n${renderTodos(output.todos)}`,
  });
}
