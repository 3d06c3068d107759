import type { RunEvent } from './api.js';
import { el, linkified, when, type Child } from './dom.js';

type Data = Record<string, unknown>;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function list(value: unknown): Data[] {
  return Array.isArray(value) ? (value.filter((v) => v && typeof v === 'object') as Data[]) : [];
}

/** A unified diff, one line per row, additions and removals marked for colour and for readers. */
export function diffView(patch: string): HTMLElement {
  const lines = patch.split('\n').map((line) => {
    const kind = line.startsWith('+')
      ? 'add'
      : line.startsWith('-')
        ? 'del'
        : line.startsWith('@@')
          ? 'hunk'
          : 'ctx';
    return el('span', { class: `diff-${kind}` }, `${line}\n`);
  });
  return el('pre', { class: 'diff', 'aria-label': 'diff' }, ...lines);
}

const TODO_MARKS: Record<string, string> = { pending: '☐', in_progress: '▶', completed: '☑' };

/** The agent's todo list (`write_todos`, `evt.run.todos`): one item a line, its status marked. */
function todosView(todos: Data[]): HTMLElement {
  return el(
    'ul',
    { class: 'todos', 'aria-label': 'todo list' },
    ...todos.map((todo) =>
      el(
        'li',
        { class: `todo todo-${text(todo['status'])}` },
        `${TODO_MARKS[text(todo['status'])] ?? '•'} ${text(todo['content'])}`,
      ),
    ),
  );
}

function step(data: Data): Child[] {
  const calls = list(data['toolCalls']);
  const todos = calls.find((call) => call['name'] === 'write_todos');
  return [
    el(
      'h3',
      {},
      `Step ${typeof data['step'] === 'number' ? data['step'] : ''}`,
      data['actor'] && data['actor'] !== 'agent' ? ` by ${text(data['actor'])}` : '',
    ),
    text(data['thought']) && el('p', { class: 'thought' }, linkified(text(data['thought']))),
    todos && todosView(list((todos['args'] as Data | undefined)?.['todos'])),
    calls.length > 0 &&
      el(
        'ul',
        { class: 'tool-calls', 'aria-label': 'tool calls' },
        ...calls.map((call) =>
          el(
            'li',
            {},
            el('code', {}, text(call['name'])),
            ' ',
            el('code', { class: 'args' }, JSON.stringify(call['args'] ?? {})),
          ),
        ),
      ),
    text(data['observation']) &&
      el('details', {}, el('summary', {}, 'Observation'), el('pre', {}, text(data['observation']))),
  ];
}

function finished(data: Data): Child[] {
  const submission = text(data['submission']);
  return [
    el(
      'h3',
      {},
      `Run ${text(data['outcome'])}`,
      data['exitStatus'] ? ` (${text(data['exitStatus'])})` : '',
    ),
    text(data['summary']) && el('p', { class: 'summary' }, linkified(text(data['summary']))),
    submission && el('details', { open: true }, el('summary', {}, 'Diff'), diffView(submission)),
  ];
}

function body(event: RunEvent): Child[] {
  const data = event.data;
  switch (event.type) {
    case 'evt.run.started':
      return [
        el('h3', {}, 'Run started'),
        text(data['model']) && el('p', {}, `Model ${text(data['model'])}`),
      ];
    case 'evt.run.step':
      return step(data);
    case 'evt.run.output':
      return [el('pre', { class: 'output' }, text(data['text']))];
    case 'evt.run.finished':
      return finished(data);
    case 'evt.run.todos':
      return [el('h3', {}, 'Todo list'), todosView(list(data['todos']))];
    default:
      return [el('h3', {}, event.type)];
  }
}

/** One run event as a list item of the thread's live view. */
export function eventView(event: RunEvent): HTMLLIElement {
  return el(
    'li',
    { class: `event ${event.type.replace(/\W+/g, '-')}`, 'data-sequence': event.sequence },
    el('time', { datetime: event.occurredAt }, when(event.occurredAt)),
    ...body(event),
  );
}
