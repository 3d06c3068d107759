import type { z } from 'zod';
import type { repositoryInstructionsResponse, teamDefaultsResponse } from '../api/schemas.js';
import { api } from './api.js';
import { dataTable, el, formText, show, when } from './dom.js';
import { errorView } from './errors.js';
import { choice, chosen, input, nullable } from './form-fields.js';

type TeamDefaults = z.output<typeof teamDefaultsResponse>;
type RepositoryInstructions = z.output<typeof repositoryInstructionsResponse>;

const ENV = 'the environment’s';

/** The team's defaults: a blank field leaves the platform's configuration in force. */
function teamDefaultsForm(saved: TeamDefaults): HTMLFormElement {
  const status = el('p', { role: 'status' });
  const form = el(
    'form',
    { 'aria-label': 'team defaults' },
    input('model', 'Model', saved.model, `${ENV} CARAVEL_MODEL`),
    input('reasoningEffort', 'Reasoning effort', saved.reasoningEffort, "the model's default"),
    input('fallbackModel', 'Fallback model', saved.fallbackModel, `${ENV} CARAVEL_FALLBACK_MODEL`),
    input(
      'subagentModel',
      'Subagent model',
      saved.subagentModel,
      "CARAVEL_SUBAGENT_MODEL, else the run's",
    ),
    choice('draftPullRequests', 'Draft pull requests', saved.draftPullRequests, 'yes (default)'),
    choice(
      'alwaysCreatePullRequests',
      'Always create pull requests',
      saved.alwaysCreatePullRequests,
      `${ENV} RUN_ALWAYS_CREATE_PRS`,
    ),
    el('button', { type: 'submit' }, 'Save team defaults'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = {
      model: nullable(data, 'model'),
      reasoningEffort: nullable(data, 'reasoningEffort'),
      fallbackModel: nullable(data, 'fallbackModel'),
      subagentModel: nullable(data, 'subagentModel'),
      draftPullRequests: chosen(data, 'draftPullRequests'),
      alwaysCreatePullRequests: chosen(data, 'alwaysCreatePullRequests'),
    };
    api<TeamDefaults>('/api/team-defaults', { method: 'PUT', body }).then(
      (done) => show(status, `Saved ${when(done.updatedAt)} by ${done.updatedBy ?? '—'}.`),
      (error: unknown) => show(status, errorView(error)),
    );
  });
  return form;
}

const instructionsPath = (repository: string) =>
  `/api/repository-instructions/${repository.split('/').map(encodeURIComponent).join('/')}`;

function instructionsRow(row: RepositoryInstructions, reload: () => void, status: HTMLElement) {
  const forget = el(
    'button',
    { type: 'button', class: 'link', 'aria-label': `Forget the instructions of ${row.repository}` },
    'Forget',
  );
  forget.addEventListener('click', () => {
    api(instructionsPath(row.repository), { method: 'DELETE' }).then(reload, (error: unknown) =>
      show(status, errorView(error)),
    );
  });
  return el(
    'tr',
    {},
    el('td', {}, row.repository),
    el('td', {}, row.instructions),
    el('td', {}, `${row.updatedBy ?? '—'}, ${when(row.updatedAt)}`),
    el('td', {}, forget),
  );
}

/** Every repository's instructions, and a form that sets one's. */
function repositoryInstructions(reload: () => void): HTMLElement {
  const status = el('p', { role: 'status' });
  const table = el('div', { 'aria-live': 'polite' }, 'Loading…');
  api<RepositoryInstructions[]>('/api/repository-instructions').then(
    (rows) =>
      show(
        table,
        rows.length === 0
          ? el('p', {}, 'No repository has instructions yet.')
          : dataTable(
              { class: 'repository-instructions' },
              null,
              ['Repository', 'Instructions', 'Changed', ''],
              rows.map((row) => instructionsRow(row, reload, status)),
            ),
      ),
    (error: unknown) => show(table, errorView(error)),
  );
  const text = el('textarea', { name: 'instructions', rows: 4, maxlength: 8000 });
  const form = el(
    'form',
    { 'aria-label': 'repository instructions' },
    input('repository', 'Repository', null, 'owner/name'),
    el('label', {}, el('span', {}, 'Instructions'), text),
    el('button', { type: 'submit' }, 'Save repository instructions'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const repository = formText(new FormData(form), 'repository').trim();
    api(instructionsPath(repository), { method: 'PUT', body: { instructions: text.value } }).then(
      reload,
      (error: unknown) => show(status, errorView(error)),
    );
  });
  return el(
    'section',
    { 'aria-labelledby': 'repository-instructions-title' },
    el('h3', { id: 'repository-instructions-title' }, 'Repository instructions'),
    el(
      'p',
      { class: 'note' },
      'Given to every coding run in the repository beside its AGENTS.md files.',
    ),
    table,
    form,
  );
}

/**
 * What admins keep for the whole team: its defaults (between people's profiles and the
 * platform's configuration) and each repository's instructions. Members see only that they exist.
 */
export function teamSection(admin: boolean, reload: () => void): HTMLElement {
  const defaults = el('div', {}, 'Loading…');
  if (admin) {
    api<TeamDefaults>('/api/team-defaults').then(
      (saved) => show(defaults, teamDefaultsForm(saved)),
      (error: unknown) => show(defaults, errorView(error)),
    );
  }
  return el(
    'section',
    { 'aria-labelledby': 'team-title' },
    el('h2', { id: 'team-title' }, 'Team (admins)'),
    el(
      'p',
      { class: 'note' },
      "The team's defaults apply where a thread and a person's profile say nothing; blank keeps ",
      "the platform's configuration (CARAVEL_MODEL…).",
      !admin && ' Admins keep them, and each repository’s instructions.',
    ),
    admin && defaults,
    admin && repositoryInstructions(reload),
  );
}
