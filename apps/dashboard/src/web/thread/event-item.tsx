import { Code, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import type { RunEvent } from '../api.js';
import { Linkified, when } from '../ui.js';
import { DiffView } from './diff-view.js';

type Data = Record<string, unknown>;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function list(value: unknown): Data[] {
  return Array.isArray(value) ? (value.filter((v) => v && typeof v === 'object') as Data[]) : [];
}

const TODO_MARKS: Record<string, string> = { pending: '☐', in_progress: '▶', completed: '☑' };

/** The agent's todo list (`write_todos`, `evt.run.todos`): one item a line, its status marked. */
function Todos({ todos }: { todos: Data[] }) {
  return (
    <ul className="todos" aria-label="todo list">
      {todos.map((todo, index) => (
        <li key={index} className={`todo todo-${text(todo['status'])}`}>
          {`${TODO_MARKS[text(todo['status'])] ?? '•'} ${text(todo['content'])}`}
        </li>
      ))}
    </ul>
  );
}

function Heading({ children }: { children: ReactNode }) {
  return <Title order={3}>{children}</Title>;
}

/** A step: who took it (the agent, a person, a subagent), its thought, todos and tool calls. */
function Step({ data }: { data: Data }) {
  const calls = list(data['toolCalls']);
  const todos = calls.find((call) => call['name'] === 'write_todos');
  const actor = text(data['actor']);
  return (
    <>
      <Heading>
        {`Step ${typeof data['step'] === 'number' ? data['step'] : ''}`}
        {actor && actor !== 'agent' ? ` by ${actor}` : ''}
      </Heading>
      {text(data['thought']) && (
        <p className="thought">
          <Linkified text={text(data['thought'])} />
        </p>
      )}
      {todos && <Todos todos={list((todos['args'] as Data | undefined)?.['todos'])} />}
      {calls.length > 0 && (
        <ul className="tool-calls" aria-label="tool calls">
          {calls.map((call, index) => (
            <li key={index}>
              <Code>{text(call['name'])}</Code>{' '}
              <Code className="args">{JSON.stringify(call['args'] ?? {})}</Code>
            </li>
          ))}
        </ul>
      )}
      {text(data['observation']) && (
        <details>
          <summary>Observation</summary>
          <pre className="wrap">
            <Linkified text={text(data['observation'])} />
          </pre>
        </details>
      )}
    </>
  );
}

function Finished({ data }: { data: Data }) {
  const submission = text(data['submission']);
  return (
    <>
      <Heading>
        {`Run ${text(data['outcome'])}`}
        {data['exitStatus'] ? ` (${text(data['exitStatus'])})` : ''}
      </Heading>
      {text(data['summary']) && (
        <p className="summary">
          <Linkified text={text(data['summary'])} />
        </p>
      )}
      {submission && (
        <details open>
          <summary>Diff</summary>
          <DiffView patch={submission} />
        </details>
      )}
    </>
  );
}

/** A subagent (the task tool) began or ended: what it was asked, on which model, what it said. */
function Subagent({ data }: { data: Data }) {
  const started = data['phase'] === 'started';
  return (
    <>
      <Heading>
        {`Subagent ${started ? 'started' : 'finished'}: ${text(data['description'])}`}
        {data['exitStatus'] ? ` (${text(data['exitStatus'])})` : ''}
      </Heading>
      <p className="note">{`Model ${text(data['model'])} · subagent:${text(data['subagentRunId'])}`}</p>
      {text(started ? data['prompt'] : data['result']) && (
        <pre className="wrap">{text(started ? data['prompt'] : data['result'])}</pre>
      )}
    </>
  );
}

function Body({ event }: { event: RunEvent }) {
  const data = event.data;
  switch (event.type) {
    case 'evt.run.started':
      return (
        <>
          <Heading>Run started</Heading>
          {text(data['model']) && <p>{`Model ${text(data['model'])}`}</p>}
        </>
      );
    case 'evt.run.step':
      return <Step data={data} />;
    case 'evt.run.output':
      return <pre className="output wrap">{text(data['text'])}</pre>;
    case 'evt.run.finished':
      return <Finished data={data} />;
    case 'evt.run.todos':
      return (
        <>
          <Heading>Todo list</Heading>
          <Todos todos={list(data['todos'])} />
        </>
      );
    case 'evt.run.subagent':
      return <Subagent data={data} />;
    default:
      return <Heading>{event.type}</Heading>;
  }
}

/** One run event as a list item of the thread's live view. */
export function EventItem({ event }: { event: RunEvent }) {
  return (
    <li
      className={`event ${event.type.replace(/\W+/g, '-')}`}
      data-sequence={event.sequence}
      data-position={event.position}
    >
      <time dateTime={event.occurredAt}>{when(event.occurredAt)}</time>
      <Body event={event} />
    </li>
  );
}
