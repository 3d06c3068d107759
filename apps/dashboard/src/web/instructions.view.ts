import type { z } from 'zod';
import type { userInstructionsResponse } from '../api/schemas.js';
import { api, type Me } from './api.js';
import { dataTable, el, formText, show, when } from './dom.js';
import { errorView } from './errors.js';

type Instructions = z.output<typeof userInstructionsResponse>;

const path = (identity: string) => `/api/instructions/${encodeURIComponent(identity)}`;

/** A form over one person's instructions: save replaces them, Forget removes them. */
function instructionsForm(label: string, saved: Instructions | null, reload: () => void) {
  const status = el('p', { role: 'status' });
  const identityField = saved
    ? null
    : el('input', { name: 'identity', placeholder: 'github:octocat', required: true });
  const text = el('textarea', { name: 'instructions', rows: 4, maxlength: 4000 });
  text.value = saved?.instructions ?? '';
  const form = el(
    'form',
    { 'aria-label': label },
    identityField && el('label', {}, el('span', {}, 'Person'), identityField),
    el('label', {}, el('span', {}, 'Instructions'), text),
    el('button', { type: 'submit' }, 'Save instructions'),
    saved?.updatedAt &&
      el('button', { type: 'button', name: 'forget', class: 'link' }, 'Forget them'),
    status,
  );
  const identity = () => saved?.identity ?? formText(new FormData(form), 'identity').trim();
  const failed = (error: unknown) => show(status, errorView(error));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = { instructions: text.value };
    api<Instructions>(path(identity()), { method: 'PUT', body }).then(
      (done) => (saved ? show(status, `Saved ${when(done.updatedAt)}.`) : reload()),
      failed,
    );
  });
  form.querySelector('button[name="forget"]')?.addEventListener('click', () => {
    api(path(identity()), { method: 'DELETE' }).then(reload, failed);
  });
  return form;
}

/** Admins: everyone's instructions, and a form for anyone's. */
function everyone(reload: () => void): HTMLElement {
  const table = el('div', { 'aria-live': 'polite' }, 'Loading…');
  api<Instructions[]>('/api/instructions').then(
    (rows) =>
      show(
        table,
        rows.length === 0
          ? el('p', {}, 'Nobody keeps standing instructions yet.')
          : dataTable(
              { class: 'instructions' },
              null,
              ['Person', 'Instructions', 'Changed'],
              rows.map((row) =>
                el(
                  'tr',
                  {},
                  el('td', {}, row.identity),
                  el('td', {}, row.instructions),
                  el('td', {}, when(row.updatedAt)),
                ),
              ),
            ),
      ),
    (error: unknown) => show(table, errorView(error)),
  );
  return el(
    'section',
    { 'aria-labelledby': 'everyone-title' },
    el('h3', { id: 'everyone-title' }, "Everyone's instructions (admins)"),
    table,
    instructionsForm("another person's instructions", null, reload),
  );
}

/**
 * Standing instructions the agent attaches to a person's requests (repository instructions and
 * AGENTS.md win on conflict): the person's own, and for admins everyone's.
 */
export function instructionsSection(me: Me | null, reload: () => void): HTMLElement {
  const own = el('div', {}, me ? 'Loading…' : 'Sign in to keep standing instructions.');
  if (me) {
    api<Instructions>(path(`github:${me.login}`)).then(
      (saved) => show(own, instructionsForm('your instructions', saved, reload)),
      (error: unknown) => show(own, errorView(error)),
    );
  }
  return el(
    'section',
    { 'aria-labelledby': 'instructions-title' },
    el('h2', { id: 'instructions-title' }, 'Standing instructions'),
    el(
      'p',
      { class: 'note' },
      'Attached to your requests; repository instructions and AGENTS.md win on conflict.',
    ),
    own,
    me?.role === 'admin' && everyone(reload),
  );
}
