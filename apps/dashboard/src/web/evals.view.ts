import type { z } from 'zod';
import type {
  evalProposalResponse,
  evalRunDetailResponse,
  evalRunResponse,
} from '../api/eval-schemas.js';
import { api } from './api.js';
import { dataTable, el, formText, show, when } from './dom.js';
import { errorView } from './errors.js';

type EvalRun = z.output<typeof evalRunResponse>;
type EvalRunDetail = z.output<typeof evalRunDetailResponse>;
type EvalProposal = z.output<typeof evalProposalResponse>;

const percent = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)}%`);
const dollars = (usd: number) => `$${usd.toFixed(2)}`;
const runLink = (id: string | null) =>
  id ? el('a', { href: `#/evals/runs/${id}` }, id.slice(0, 8)) : '—';

function resolveText(run: EvalRun): string {
  const { rate, low, high } = run.resolve;
  return rate === null ? '—' : `${percent(rate)} [${percent(low)}, ${percent(high)}]`;
}

function runRow(run: EvalRun): HTMLTableRowElement {
  return el(
    'tr',
    {},
    el('td', {}, runLink(run.id), ' ', when(run.createdAt)),
    el('td', {}, run.suite),
    el('td', {}, run.config),
    el('td', {}, el('code', {}, run.model)),
    el('td', {}, run.status),
    el('td', {}, `${run.tasks} · ${run.resolvedAttempts}/${run.attempts}`),
    el('td', {}, resolveText(run)),
    el('td', {}, dollars(run.costUsd)),
  );
}

function proposalRow(proposal: EvalProposal): HTMLTableRowElement {
  const decided = proposal.status !== 'pending';
  return el(
    'tr',
    { id: `proposal-${proposal.id}` },
    el('td', {}, when(proposal.createdAt)),
    el('td', {}, proposal.suite),
    el('td', {}, proposal.config, ' ', el('code', {}, proposal.model)),
    el('td', {}, proposal.proposedBy),
    el('td', {}, el('span', { class: `status status-${proposal.status}` }, proposal.status)),
    el(
      'td',
      {},
      decided && proposal.delta !== null
        ? `${(proposal.delta * 100).toFixed(1)} points, p = ${proposal.pValue?.toPrecision(2) ?? '—'}`
        : '—',
    ),
    el('td', {}, runLink(proposal.baselineRunId), ' → ', runLink(proposal.candidateRunId)),
    el('td', {}, proposal.reason ?? proposal.note ?? ''),
  );
}

/** The suite filter; submitting it puts it in the URL, like the reviews' filter. */
function suiteFilter(suite: string): HTMLFormElement {
  const form = el(
    'form',
    { 'aria-label': 'filter evals' },
    el(
      'label',
      {},
      el('span', {}, 'Suite'),
      el('input', { name: 'suite', placeholder: 'suite name', value: suite }),
    ),
    el('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = formText(new FormData(form), 'suite').trim();
    location.hash = chosen
      ? `#/evals?${new URLSearchParams({ suite: chosen }).toString()}`
      : '#/evals';
  });
  return form;
}

/** Loads a list into its own live region: a table of its rows, or a line when it is empty. */
function listing<T>(
  path: string,
  what: [one: string, many: string],
  columns: string[],
  row: (item: T) => HTMLTableRowElement,
) {
  const region = el('div', { 'aria-live': 'polite' }, el('p', {}, `Loading ${what[1]}…`));
  api<T[]>(path).then(
    (items) =>
      show(
        region,
        items.length === 0
          ? el('p', {}, `No ${what[1]} recorded.`)
          : dataTable(
              { class: 'evals' },
              `${items.length} ${items.length === 1 ? what[0] : what[1]}`,
              columns,
              items.map(row),
            ),
      ),
    (error: unknown) => show(region, errorView(error)),
  );
  return region;
}

/** Recorded eval runs and the gate's proposals, the newest first. */
function evalListView(query: URLSearchParams): HTMLElement {
  const suite = query.get('suite') ?? '';
  const params = new URLSearchParams({ limit: '100', ...(suite ? { suite } : {}) }).toString();
  return el(
    'section',
    { 'aria-labelledby': 'page-title' },
    el('h1', { id: 'page-title', tabindex: -1 }, 'Evals'),
    suiteFilter(suite),
    el('h2', {}, 'Proposed changes'),
    listing<EvalProposal>(
      `/api/evals/proposals?${params}`,
      ['proposal', 'proposals'],
      ['Proposed', 'Suite', 'Configuration', 'By', 'Verdict', 'Change', 'Runs', 'Reason'],
      proposalRow,
    ),
    el('h2', {}, 'Runs'),
    listing<EvalRun>(
      `/api/evals/runs?${params}`,
      ['run', 'runs'],
      [
        'Run',
        'Suite',
        'Configuration',
        'Model',
        'Status',
        'Tasks · resolved',
        'Resolve rate (95%)',
        'Cost',
      ],
      runRow,
    ),
  );
}

function runBody(run: EvalRunDetail): HTMLElement {
  return el(
    'div',
    {},
    el(
      'p',
      {},
      `${run.suite} under ${run.config} (`,
      el('code', {}, run.model),
      `), ${run.status}: ${resolveText(run)} of ${run.attempts} attempt(s), ${dollars(run.costUsd)}`,
      run.outDir ? ` · files in ${run.outDir}` : '',
    ),
    dataTable(
      { class: 'evals' },
      `${run.taskResults.length} task(s)`,
      ['Task', 'Resolved', 'Cost', 'Model calls', 'Ended'],
      run.taskResults.map((task) =>
        el(
          'tr',
          {},
          el('td', {}, task.taskId),
          el('td', {}, `${task.resolved}/${task.attempts}`),
          el('td', {}, dollars(task.costUsd)),
          el('td', {}, String(task.modelCalls)),
          el('td', {}, task.exitStatuses.join(', ')),
        ),
      ),
    ),
  );
}

function runView(id: string): HTMLElement {
  const body = el('div', { 'aria-live': 'polite' }, el('p', {}, 'Loading the run…'));
  api<EvalRunDetail>(`/api/evals/runs/${encodeURIComponent(id)}`).then(
    (run) => show(body, runBody(run)),
    (error: unknown) => show(body, errorView(error)),
  );
  return el(
    'section',
    { 'aria-labelledby': 'page-title' },
    el('p', {}, el('a', { href: '#/evals' }, '← All evals')),
    el('h1', { id: 'page-title', tabindex: -1 }, `Eval run ${id.slice(0, 8)}`),
    body,
  );
}

/** `#/evals[?suite=…]` (runs and proposals) or `#/evals/runs/<id>` (one run by task). */
export function evalsView(path: string[], query: URLSearchParams): HTMLElement {
  const [kind, id] = path;
  return kind === 'runs' && id ? runView(id) : evalListView(query);
}
