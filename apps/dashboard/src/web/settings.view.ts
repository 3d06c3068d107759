import { api, type EnabledRepository, type Me, type Profile } from './api.js';
import { dataTable, el, formText, show, when } from './dom.js';
import { errorView } from './errors.js';
import { checkbox, input, nullable } from './form-fields.js';
import { instructionsSection } from './instructions.view.js';
import { teamSection } from './team.view.js';

/**
 * The person's profile: model and effort, default repository, fallback and subagent models, draft
 * pull requests, auto-fix CI.
 * Auto-fix CI shows the team's default (on) until the person changes it: left as shown, a profile
 * that never chose keeps following the team.
 */
function profileForm(identity: string, profile: Profile): HTMLFormElement {
  const status = el('p', { role: 'status' });
  const autofixShown = profile.autofixCi ?? true;
  const form = el(
    'form',
    { class: 'profile', 'aria-label': 'profile' },
    input('model', 'Model', profile.model, 'team default, e.g. anthropic:claude-sonnet-4-5'),
    input('reasoningEffort', 'Reasoning effort', profile.reasoningEffort, 'low, medium, high'),
    input('defaultRepository', 'Default repository', profile.defaultRepository, 'owner/name'),
    input(
      'fallbackModel',
      'Fallback model',
      profile.fallbackModel,
      "used when the model fails after its retries; team's by default",
    ),
    input(
      'subagentModel',
      'Subagent model',
      profile.subagentModel,
      "what the task tool's subagents run on; team's by default",
    ),
    checkbox('draftPullRequests', 'Open pull requests as drafts', profile.draftPullRequests),
    checkbox('autofixCi', 'Auto-fix CI on my pull requests', autofixShown),
    el('button', { type: 'submit' }, 'Save profile'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const autofix = data.get('autofixCi') !== null;
    const body = {
      model: nullable(data, 'model'),
      reasoningEffort: nullable(data, 'reasoningEffort'),
      defaultRepository: nullable(data, 'defaultRepository'),
      draftPullRequests: data.get('draftPullRequests') !== null,
      alwaysCreatePullRequests: profile.alwaysCreatePullRequests,
      fallbackModel: nullable(data, 'fallbackModel'),
      subagentModel: nullable(data, 'subagentModel'),
      autofixCi: autofix === autofixShown ? profile.autofixCi : autofix,
    };
    api<Profile>(`/api/profiles/${encodeURIComponent(identity)}`, { method: 'PUT', body }).then(
      (saved) => show(status, `Saved ${when(saved.updatedAt)}.`),
      (error: unknown) => show(status, errorView(error)),
    );
  });
  return form;
}

function repositoryRow(repository: EnabledRepository): HTMLTableRowElement {
  const yes = (on: boolean) => (on ? 'on' : 'off');
  return el(
    'tr',
    {},
    el('td', {}, repository.repository),
    el('td', {}, yes(repository.agent)),
    el('td', {}, yes(repository.autoReview)),
    el('td', {}, yes(repository.ciAutofix)),
    el('td', {}, `${repository.updatedBy}, ${when(repository.updatedAt)}`),
  );
}

/** Enabled repositories: a table for everyone, and for admins a form that enables one. */
function repositoriesSection(admin: boolean, reload: () => void): HTMLElement {
  const table = el('div', { 'aria-live': 'polite' }, 'Loading…');
  api<EnabledRepository[]>('/api/repositories').then(
    (rows) =>
      show(
        table,
        rows.length === 0
          ? el('p', {}, 'No repository enabled yet.')
          : dataTable(
              {},
              null,
              ['Repository', 'Agent', 'Auto-review', 'CI autofix', 'Changed'],
              rows.map(repositoryRow),
            ),
      ),
    (error: unknown) => show(table, errorView(error)),
  );
  const status = el('p', { role: 'status' });
  const form = el(
    'form',
    { 'aria-label': 'enable a repository' },
    input('repository', 'Repository', null, 'owner/name'),
    checkbox('agent', 'Agent', true),
    checkbox('autoReview', 'Auto-review', false),
    checkbox('ciAutofix', 'CI autofix', false),
    el('button', { type: 'submit' }, 'Enable'),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const [owner = '', name = ''] = formText(data, 'repository').trim().split('/');
    const body = {
      agent: data.get('agent') !== null,
      autoReview: data.get('autoReview') !== null,
      ciAutofix: data.get('ciAutofix') !== null,
    };
    api(`/api/repositories/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`, {
      method: 'PUT',
      body,
    }).then(reload, (error: unknown) => show(status, errorView(error)));
  });
  return el(
    'section',
    { 'aria-labelledby': 'repositories-title' },
    el('h2', { id: 'repositories-title' }, 'Enabled repositories'),
    table,
    admin && form,
  );
}

export function settingsView(me: Me | null, reload: () => void): HTMLElement {
  const profile = el('div', {}, me ? 'Loading…' : 'Sign in to keep a profile.');
  if (me) {
    const identity = `github:${me.login}`;
    api<Profile>(`/api/profiles/${encodeURIComponent(identity)}`).then(
      (saved) => show(profile, profileForm(identity, saved)),
      (error: unknown) => show(profile, errorView(error)),
    );
  }
  return el(
    'section',
    { 'aria-labelledby': 'page-title' },
    el('h1', { id: 'page-title', tabindex: -1 }, 'Settings'),
    el(
      'section',
      { 'aria-labelledby': 'profile-title' },
      el('h2', { id: 'profile-title' }, 'Your profile'),
      profile,
    ),
    instructionsSection(me, reload),
    teamSection(me?.role === 'admin', reload),
    repositoriesSection(me?.role === 'admin', reload),
  );
}
