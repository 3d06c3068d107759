import { api } from './api.js';
import { el, show } from './dom.js';
import { errorView } from './errors.js';

/**
 * Stops the thread's work: its waiting run is cancelled and its active run interrupted at its
 * last checkpoint, with no next run (dispatch says "stopped" once in the thread's channel).
 */
export function stopButton(threadId: string): HTMLElement {
  const status = el('p', { role: 'status', class: 'action-status' });
  const button = el('button', { type: 'button', class: 'stop' }, 'Stop the run');
  button.addEventListener('click', () => {
    button.setAttribute('disabled', '');
    show(status, 'Stopping…');
    api<{ requestId: string }>(`/api/threads/${threadId}/stop`, { method: 'POST', body: {} })
      .then(
        () => show(status, 'Stop requested: the run ends at its last checkpoint.'),
        (error: unknown) => show(status, errorView(error)),
      )
      .finally(() => button.removeAttribute('disabled'));
  });
  return el('div', { class: 'stop-control' }, button, status);
}
