import { api, type Run, type RunEvent, type Thread } from './api.js';
import { el, formText, show, when } from './dom.js';
import { errorView } from './errors.js';
import { eventView } from './event-view.js';
import { stopButton } from './stop-button.js';

/** What a view leaves running (the live stream), stopped when the person navigates away. */
export type Cleanup = () => void;

function header(thread: Thread, runs: Run[]): HTMLElement {
  const repository = thread.repositoryOwner
    ? `${thread.repositoryOwner}/${thread.repositoryName ?? ''}`
    : 'no repository';
  return el(
    'header',
    { class: 'thread-header' },
    el(
      'p',
      {},
      `${thread.source} · ${repository} · `,
      el('span', { class: `status status-${thread.status}` }, thread.status),
    ),
    el(
      'ul',
      { class: 'runs', 'aria-label': 'runs' },
      ...runs.map((run) =>
        el(
          'li',
          {},
          `${run.status}${run.exitStatus ? ` (${run.exitStatus})` : ''} · ${when(run.createdAt)}`,
          run.summary ? ` · ${run.summary}` : '',
        ),
      ),
    ),
  );
}

/** Follow-up box: a message for the agent, or a command run in the sandbox between its steps. */
function actionForm(threadId: string): HTMLFormElement {
  const status = el('p', { role: 'status', class: 'action-status' });
  const form = el(
    'form',
    { class: 'action', 'aria-label': 'take part' },
    el(
      'label',
      {},
      el('span', {}, 'Message or command'),
      el('textarea', { name: 'text', rows: 3, required: true }),
    ),
    el(
      'fieldset',
      {},
      el('legend', {}, 'Send as'),
      el(
        'label',
        {},
        el('input', { type: 'radio', name: 'kind', value: 'message', checked: true }),
        ' a follow-up message',
      ),
      el(
        'label',
        {},
        el('input', { type: 'radio', name: 'kind', value: 'command' }),
        ' a command in the sandbox',
      ),
    ),
    el('button', { type: 'submit' }, 'Send'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = {
      kind: formText(data, 'kind') || 'message',
      text: formText(data, 'text'),
    };
    show(status, 'Sending…');
    api<{ triggerId: string }>(`/api/threads/${threadId}/actions`, { method: 'POST', body }).then(
      () => {
        form.reset();
        show(status, 'Sent: it reaches the agent before its next step.');
      },
      (error: unknown) => show(status, errorView(error)),
    );
  });
  return form;
}

/**
 * A thread's live view: its header and runs, then every run event, streamed (Server-Sent Events;
 * the browser reconnects with Last-Event-ID, so nothing is missed or shown twice).
 */
export function threadView(threadId: string): { view: HTMLElement; cleanup: Cleanup } {
  const title = el('h1', { id: 'page-title', tabindex: -1 }, 'Thread');
  const top = el('div', {}, el('p', {}, 'Loading…'));
  const events = el('ol', { class: 'events', 'aria-label': 'run events', 'aria-live': 'polite' });
  const seen = new Set<number>();
  const stream = new EventSource(`/api/threads/${threadId}/stream`);
  stream.addEventListener('run-event', (message) => {
    const event = JSON.parse((message as MessageEvent<string>).data) as RunEvent;
    if (seen.has(event.sequence)) return;
    seen.add(event.sequence);
    events.append(eventView(event));
  });
  api<{ thread: Thread; runs: Run[] }>(`/api/threads/${threadId}`).then(
    ({ thread, runs }) => {
      show(title, thread.title || `Thread ${thread.id}`);
      show(top, header(thread, runs));
    },
    (error: unknown) => {
      stream.close();
      show(top, errorView(error));
    },
  );
  const view = el(
    'section',
    { 'aria-labelledby': 'page-title', class: 'thread' },
    el('p', {}, el('a', { href: '#/threads' }, '← Threads')),
    title,
    top,
    el('h2', {}, 'Events'),
    events,
    el('h2', {}, 'Take part'),
    stopButton(threadId),
    actionForm(threadId),
  );
  return { view, cleanup: () => stream.close() };
}
