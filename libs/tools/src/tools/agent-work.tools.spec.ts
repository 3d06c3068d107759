import { describe, expect, it } from '@jest/globals';
import { curatedTools, subagentToolsOf, agentWorkTools } from '../curated-tools.js';
import { DirectoryToolSandbox } from '../testing/directory-tool-sandbox.js';
import { InMemoryScm, RecordingReplyChannel } from '../testing/fake-ports.js';
import type { SubagentPort, SubagentTask, TodoItem, TodoListPort } from './agent-work.ports.js';
import { taskTool } from './task.tool.js';
import { renderTodos, writeTodosTool } from './write-todos.tool.js';

class RecordingTodos implements TodoListPort {
  readonly published: { todos: readonly TodoItem[]; callId: string | undefined }[] = [];
  publish(todos: readonly TodoItem[], callId: string | undefined): Promise<void> {
    this.published.push({ todos, callId });
    return Promise.resolve();
  }
}

class AnsweringSubagents implements SubagentPort {
  readonly asked: SubagentTask[] = [];
  constructor(private readonly exitStatus = 'submitted') {}
  run(task: SubagentTask) {
    this.asked.push(task);
    return Promise.resolve({
      subagentRunId: 'child',
      model: 'scripted:sub',
      exitStatus: this.exitStatus,
      answer: 'parser tests are in src/parser.spec.ts',
      modelCalls: 2,
      costUsd: 0.01,
    });
  }
}

describe('write_todos', () => {
  it('publishes the whole list under its call and shows it back', async () => {
    const port = new RecordingTodos();
    const todos = [
      { content: 'Reproduce', status: 'completed' },
      { content: 'Fix', status: 'in_progress' },
      { content: 'Test', status: 'pending' },
    ];
    const result = await writeTodosTool(port).invoke({ todos }, { callId: 'c1' });

    expect(result.ok).toBe(true);
    expect(port.published).toEqual([{ todos, callId: 'c1' }]);
    expect(result.observation).toBe('Todo list updated:\n[x] Reproduce\n[~] Fix\n[ ] Test');
  });

  it.each([
    ['an unknown status', [{ content: 'Fix', status: 'doing' }], /todos\.0\.status/],
    ['an empty item', [{ content: '  ', status: 'pending' }], /todos\.0\.content/],
    [
      'two items in progress',
      [
        { content: 'A', status: 'in_progress' },
        { content: 'B', status: 'in_progress' },
      ],
      /at most one item may be in_progress/,
    ],
    ['a list that is not a list', 'fix it', /todos/],
  ])('refuses %s as a BAD_REQUEST the model can fix, publishing nothing', async (_, todos, why) => {
    const port = new RecordingTodos();
    const result = await writeTodosTool(port).invoke({ todos });

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('BAD_REQUEST');
    expect(result.observation).toMatch(why);
    expect(port.published).toEqual([]);
  });

  it('renders an empty list', () => {
    expect(renderTodos([])).toBe('(empty)');
  });
});

describe('task', () => {
  it("hands the subtask to a subagent under the parent's call and answers with its answer", async () => {
    const subagents = new AnsweringSubagents();
    const result = await taskTool(subagents).invoke(
      { description: 'find tests', prompt: 'Where are the parser tests?' },
      { callId: 'c2' },
    );

    expect(subagents.asked).toEqual([
      { description: 'find tests', prompt: 'Where are the parser tests?', callId: 'c2' },
    ]);
    expect(result.observation).toBe('parser tests are in src/parser.spec.ts');
  });

  it('says when the subagent was stopped by a limit', async () => {
    const result = await taskTool(new AnsweringSubagents('exit_cost')).invoke({
      description: 'd',
      prompt: 'p',
    });
    expect(result.observation).toMatch(/^The subagent stopped before it finished \(exit_cost\)/);
  });
});

describe('subagentToolsOf', () => {
  it('withholds task, write_todos and the tools that end the run', () => {
    const tools = [
      ...curatedTools({
        sandbox: new DirectoryToolSandbox('/nonexistent-caravel-root'),
        channel: new RecordingReplyChannel(),
        scm: new InMemoryScm(),
      }),
      ...agentWorkTools({ subagents: new AnsweringSubagents(), todos: new RecordingTodos() }),
    ];
    const names = subagentToolsOf(tools).map((tool) => tool.name);

    for (const withheld of ['task', 'write_todos', 'submit', 'exit_forfeit'])
      expect(names).not.toContain(withheld);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'edit_file', 'execute']));
  });
});
