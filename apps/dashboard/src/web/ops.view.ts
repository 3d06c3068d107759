import type { z } from 'zod';
import type { opsResponse } from '../api/ops-schemas.js';
import { api } from './api.js';
import { barChart } from './chart.js';
import { dataTable, el, formText, show } from './dom.js';
import { errorView } from './errors.js';

type Ops = z.output<typeof opsResponse>;
type Group = Ops['byRepository'][number];

const usd = (value: number | null) =>
  value === null ? '—' : `$${value.toFixed(value !== 0 && Math.abs(value) < 1 ? 4 : 2)}`;
const count = (value: number) => value.toLocaleString('en');
const seconds = (value: number | null) => (value === null ? '—' : `${Math.round(value)} s`);

function tile(label: string, value: string): HTMLElement {
  return el('li', {}, el('b', {}, value), label);
}

function tiles(ops: Ops): HTMLElement {
  const t = ops.totals;
  return el(
    'ul',
    { class: 'tiles', 'aria-label': 'totals' },
    tile('waiting in the queue', count(ops.queue.waiting)),
    tile('running now', count(ops.queue.active)),
    tile('runs', count(t.runs)),
    tile('failed', count(t.failed)),
    tile('model calls', count(t.modelCalls)),
    tile('tokens in / out', `${count(t.inputTokens)} / ${count(t.outputTokens)}`),
    tile('cost', usd(t.costUsd)),
    tile('per run', usd(t.costPerRunUsd)),
    tile(`per merged PR (${t.pullRequestsMerged})`, usd(t.costPerMergedPullRequestUsd)),
    tile(`per CI fix (${t.ciFixes})`, usd(t.costPerCiFixUsd)),
    tile(`per accepted finding (${t.findingsAccepted})`, usd(t.costPerAcceptedFindingUsd)),
    tile('p50 / p99 duration', `${seconds(t.p50Seconds)} / ${seconds(t.p99Seconds)}`),
  );
}

function daysTable(ops: Ops): HTMLTableElement {
  return dataTable(
    { class: 'days' },
    'Per UTC day',
    ['Day', 'Runs', 'Failed', 'Model calls', 'Tokens in', 'Tokens out', 'Cost', 'p50', 'p99'],
    ops.days.map((d) =>
      el(
        'tr',
        {},
        ...[d.day, count(d.runs), count(d.failed), count(d.modelCalls), count(d.inputTokens)]
          .concat([count(d.outputTokens), usd(d.costUsd), seconds(d.p50Seconds)])
          .concat([seconds(d.p99Seconds)])
          .map((cell) => el('td', {}, cell)),
      ),
    ),
  );
}

function groupTable(caption: string, first: string, groups: Group[]): HTMLElement {
  if (groups.length === 0) return el('p', {}, `${caption}: nothing in this window.`);
  return dataTable(
    { class: 'groups' },
    caption,
    [first, 'Runs', 'Failed', 'Cost', 'Per run', 'Merged PRs', 'Per merged PR', 'CI fixes'].concat([
      'Per CI fix',
    ]),
    groups.map((g) =>
      el(
        'tr',
        {},
        ...[g.key, count(g.runs), count(g.failed), usd(g.costUsd), usd(g.costPerRunUsd)]
          .concat([count(g.pullRequestsMerged), usd(g.costPerMergedPullRequestUsd)])
          .concat([count(g.ciFixes), usd(g.costPerCiFixUsd)])
          .map((cell) => el('td', {}, cell)),
      ),
    ),
  );
}

function runsTables(ops: Ops): HTMLElement[] {
  const statuses = dataTable(
    { class: 'statuses' },
    'Runs by status and exit status',
    ['Status', 'Exit status', 'Runs'],
    ops.statuses.map((s) =>
      el(
        'tr',
        {},
        el('td', {}, s.status),
        el('td', {}, s.exitStatus ?? '—'),
        el('td', {}, count(s.runs)),
      ),
    ),
  );
  const failures = ops.failures.length
    ? dataTable(
        { class: 'failures' },
        'Failure reasons',
        ['Exit status', 'Runs', 'The latest said'],
        ops.failures.map((f) =>
          el(
            'tr',
            {},
            el('td', {}, f.exitStatus ?? '—'),
            el('td', {}, count(f.runs)),
            el('td', {}, f.latestSummary),
          ),
        ),
      )
    : el('p', {}, 'No failed run in this window.');
  return [statuses, failures];
}

function windowForm(query: URLSearchParams): HTMLFormElement {
  const days = query.get('days') ?? '14';
  const form = el(
    'form',
    { 'aria-label': 'window' },
    el(
      'label',
      {},
      el('span', {}, 'Days'),
      el(
        'select',
        { name: 'days' },
        ...['7', '14', '30', '90'].map((d) => el('option', { value: d, selected: d === days }, d)),
      ),
    ),
    el(
      'label',
      {},
      el('span', {}, 'Until'),
      el('input', { name: 'until', type: 'date', value: query.get('until') ?? '' }),
    ),
    el('button', { type: 'submit' }, 'Show'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const next = new URLSearchParams({ days: formText(data, 'days') });
    if (formText(data, 'until')) next.set('until', formText(data, 'until'));
    location.hash = `#/ops?${next.toString()}`;
  });
  return form;
}

/** Ops and cost over a window of UTC days: tiles, a cost chart, and the tables behind them. */
export function opsView(query: URLSearchParams): HTMLElement {
  const body = el('div', { 'aria-live': 'polite' }, el('p', {}, 'Loading…'));
  const params = new URLSearchParams({ days: query.get('days') ?? '14' });
  const until = query.get('until');
  if (until) params.set('until', until);
  api<Ops>(`/api/ops?${params.toString()}`).then(
    (ops) =>
      show(
        body,
        tiles(ops),
        el('h2', {}, 'Cost per day'),
        barChart(
          'cost-chart',
          'Cost per day (US dollars)',
          ops.days.map((d) => ({ label: d.day, value: d.costUsd })),
          usd,
        ),
        daysTable(ops),
        el('h2', {}, 'By repository and person'),
        groupTable('By repository', 'Repository', ops.byRepository),
        groupTable('By person', 'Person', ops.byPerson),
        el('h2', {}, 'Runs'),
        ...runsTables(ops),
      ),
    (error: unknown) => show(body, errorView(error)),
  );
  return el(
    'section',
    { 'aria-labelledby': 'page-title' },
    el('h1', { id: 'page-title', tabindex: -1 }, 'Ops and cost'),
    windowForm(query),
    body,
  );
}
