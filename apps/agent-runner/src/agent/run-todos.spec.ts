import { describe, expect, it } from '@jest/globals';
import type { ReplyChannel } from '@caravel/tools';
import { RunTodoList } from './run-todos.js';
import type { RunWorkEvents, SubagentEvent } from './subagents.js';

function events(published: unknown[][]): RunWorkEvents {
  return {
    subagentSteps: () => {
      throw new Error('not used here');
    },
    subagent: (event: SubagentEvent) => Promise.resolve(void published.push(['subagent', event])),
    todos: (todos, id) => Promise.resolve(void published.push(['todos', todos, id])),
  };
}

describe("a run's todo list in its replies", () => {
  it('ends each reply with the list the agent last wrote, and publishes each list as before', async () => {
    const published: unknown[][] = [];
    const posted: string[] = [];
    const channel: ReplyChannel = {
      reply: (text) => Promise.resolve({ messageId: String(posted.push(text)) }),
    };
    const list = new RunTodoList();
    const work = list.recording(events(published));
    const replies = list.replies(channel);

    await replies.reply('Looking into it.');
    await work.todos(
      [
        { content: 'Reproduce the bug', status: 'completed' },
        { content: 'Fix the parser', status: 'in_progress' },
        { content: 'Add a test', status: 'pending' },
      ],
      'c1',
    );
    await replies.reply('Fixed; writing the test now.');

    expect(posted).toEqual([
      'Looking into it.',
      [
        'Fixed; writing the test now.',
        '',
        'Todos (1 of 3 done):',
        '- [x] Reproduce the bug',
        '- [~] Fix the parser',
        '- [ ] Add a test',
      ].join('\n'),
    ]);
    expect(published.map(([kind, , id]) => [kind, id])).toEqual([['todos', 'c1']]);
  });

  it('keeps the list it had when publishing a new one fails', async () => {
    const list = new RunTodoList();
    const failing: RunWorkEvents = {
      ...events([]),
      todos: () => Promise.reject(new Error('bus down')),
    };
    await list.recording(events([])).todos([{ content: 'Step one', status: 'pending' }], 'c1');
    await expect(
      list.recording(failing).todos([{ content: 'Other', status: 'pending' }], 'c2'),
    ).rejects.toThrow('bus down');
    expect(list.under('Hi')).toContain('- [ ] Step one');
  });
});
