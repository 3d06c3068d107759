import { api, type Thread } from './api.js';
import { dataTable, el, formText, show, when } from './dom.js';
import { errorView } from './errors.js';

const SOURCES = ['', 'github', 'slack', 'linear', 'jira', 'confluence', 'synthetic'];
const FILTERS = ['source', 'repo', 'person', 'status', 'since'] as const;

function field(label: string, control: HTMLElement): HTMLElement {
  return el('label', {}, el('span', {}, label), control);
}

function select(name: string, options: string[], value: string): HTMLSelectElement {
  return el(
    'select',
    { name },
    ...options.map((option) =>
      el('option', { value: option, selected: option === value }, option || 'any'),
    ),
  );
}

/** The filter form; submitting it puts the filters in the URL (so a filtered list can be shared). */
function filterForm(query: URLSearchParams): HTMLFormElement {
  const form = el(
    'form',
    { class: 'filters', 'aria-label': 'filter threads' },
    field('Source', select('source', SOURCES, query.get('source') ?? '')),
    field(
      'Repository',
      el('input', { name: 'repo', placeholder: 'owner/name', value: query.get('repo') ?? '' }),
    ),
    field(
      'Person',
      el('input', {
        name: 'person',
        placeholder: 'github:octocat',
        value: query.get('person') ?? '',
      }),
    ),
    field('Status', select('status', ['', 'idle', 'running'], query.get('status') ?? '')),
    field(
      'Updated since',
      el('input', { name: 'since', type: 'date', value: query.get('since') ?? '' }),
    ),
    el('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const value = formText(data, name).trim();
      if (value) next.set(name, value);
    }
    location.hash = `#/threads${next.size ? `?${next.toString()}` : ''}`;
  });
  return form;
}

/** The API query for the URL's filters (a date becomes the start of that day, UTC). */
function apiQuery(query: URLSearchParams): string {
  const out = new URLSearchParams({ limit: '100' });
  for (const name of FILTERS) {
    const value = query.get(name);
    if (value)
      out.set(name, name === 'since' ? new Date(`${value}T00:00:00Z`).toISOString() : value);
  }
  return out.toString();
}

function row(thread: Thread): HTMLTableRowElement {
  const repository = thread.repositoryOwner
    ? `${thread.repositoryOwner}/${thread.repositoryName ?? ''}`
    : '—';
  return el(
    'tr',
    {},
    el('td', {}, el('a', { href: `#/threads/${thread.id}` }, thread.title || thread.id)),
    el('td', {}, thread.source),
    el('td', {}, repository),
    el('td', {}, el('span', { class: `status status-${thread.status}` }, thread.status)),
    el('td', {}, when(thread.updatedAt)),
  );
}

export function threadsView(query: URLSearchParams): HTMLElement {
  const results = el('div', { 'aria-live': 'polite' }, el('p', {}, 'Loading threads…'));
  api<Thread[]>(`/api/threads?${apiQuery(query)}`).then(
    (threads) =>
      show(
        results,
        threads.length === 0
          ? el('p', {}, 'No thread matches.')
          : dataTable(
              { class: 'threads' },
              `${threads.length} thread${threads.length === 1 ? '' : 's'}`,
              ['Thread', 'Source', 'Repository', 'Status', 'Updated'],
              threads.map(row),
            ),
      ),
    (error: unknown) => show(results, errorView(error)),
  );
  return el(
    'section',
    { 'aria-labelledby': 'page-title' },
    el('h1', { id: 'page-title', tabindex: -1 }, 'Threads'),
    filterForm(query),
    results,
  );
}
