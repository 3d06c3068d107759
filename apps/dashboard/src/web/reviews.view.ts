import { api, type LedgerFinding, type ReviewedPullRequest, type ReviewLedger } from './api.js';
import { dataTable, el, formText, show, when } from './dom.js';
import { errorView } from './errors.js';

const short = (sha: string | null) => (sha ? sha.slice(0, 12) : '—');

function counts(c: ReviewLedger['counts']): string {
  return `${c.open} open · ${c.resolved} resolved · ${c.dismissed} dismissed`;
}

function pullRequestRow(review: ReviewedPullRequest): HTMLTableRowElement {
  const { owner, repo, number } = review.pullRequest;
  const name = `${owner}/${repo}#${number}`;
  return el(
    'tr',
    {},
    el('td', {}, el('a', { href: `#/reviews/${owner}/${repo}/${number}` }, name)),
    el('td', {}, String(review.counts.open)),
    el('td', {}, String(review.counts.resolved)),
    el('td', {}, String(review.counts.dismissed)),
    el('td', {}, short(review.lastReviewedSha)),
    el('td', {}, when(review.updatedAt)),
    el('td', {}, el('a', { href: review.url, rel: 'noopener noreferrer' }, 'on GitHub')),
  );
}

/** The repository filter; submitting it puts it in the URL, like the threads' filters. */
function repositoryFilter(repo: string): HTMLFormElement {
  const form = el(
    'form',
    { 'aria-label': 'filter reviews' },
    el(
      'label',
      {},
      el('span', {}, 'Repository'),
      el('input', { name: 'repo', placeholder: 'owner/name', value: repo }),
    ),
    el('button', { type: 'submit' }, 'Filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = formText(new FormData(form), 'repo').trim();
    location.hash = chosen
      ? `#/reviews?${new URLSearchParams({ repo: chosen }).toString()}`
      : '#/reviews';
  });
  return form;
}

/** Reviewed pull requests, the most recently changed first. */
function reviewListView(query: URLSearchParams): HTMLElement {
  const results = el('div', { 'aria-live': 'polite' }, el('p', {}, 'Loading reviews…'));
  const repo = query.get('repo') ?? '';
  const params = new URLSearchParams({ limit: '200', ...(repo ? { repo } : {}) });
  api<ReviewedPullRequest[]>(`/api/reviews?${params.toString()}`).then(
    (reviews) =>
      show(
        results,
        reviews.length === 0
          ? el('p', {}, 'No reviewed pull request matches.')
          : dataTable(
              { class: 'reviews' },
              `${reviews.length} reviewed pull request${reviews.length === 1 ? '' : 's'}`,
              ['Pull request', 'Open', 'Resolved', 'Dismissed', 'Reviewed at', 'Changed', 'Link'],
              reviews.map(pullRequestRow),
            ),
      ),
    (error: unknown) => show(results, errorView(error)),
  );
  return el(
    'section',
    { 'aria-labelledby': 'page-title' },
    el('h1', { id: 'page-title', tabindex: -1 }, 'Reviews'),
    repositoryFilter(repo),
    results,
  );
}

function lines(finding: LedgerFinding): string {
  const { file, startLine, endLine } = finding.anchor;
  if (startLine === null) return file;
  return endLine !== null && endLine !== startLine
    ? `${file}:${startLine}-${endLine}`
    : `${file}:${startLine}`;
}

function findingRow(finding: LedgerFinding): HTMLTableRowElement {
  const status = finding.resolution ? `${finding.status} (${finding.resolution})` : finding.status;
  return el(
    'tr',
    { id: finding.id },
    el('td', {}, el('span', { class: `severity severity-${finding.severity}` }, finding.severity)),
    el(
      'td',
      {},
      el(
        'details',
        {},
        el('summary', {}, finding.title),
        el('p', {}, finding.description),
        finding.suggestion && el('pre', {}, finding.suggestion),
        el('p', { class: 'note' }, `${finding.category} · confidence ${finding.confidence}`),
      ),
    ),
    el('td', {}, `${finding.raisedBy.name} (${finding.raisedBy.kind})`),
    el('td', {}, el('span', { class: `status status-${finding.status}` }, status)),
    el('td', {}, el('code', {}, lines(finding)), finding.inDiff ? '' : ' (outside the diff)'),
    el(
      'td',
      {},
      ...finding.links.map((link, index) =>
        el('a', { href: link, rel: 'noopener noreferrer' }, `comment ${index + 1} `),
      ),
      finding.links.length === 0 && '—',
    ),
  );
}

function verdictText(ledger: ReviewLedger): string {
  const { verdict } = ledger;
  if (!verdict) return 'No review published yet.';
  const reason = verdict.reason.replaceAll('_', ' ');
  return verdict.posted
    ? `Verdict: ${verdict.event} (${reason}).`
    : `Verdict: ${verdict.event} (${reason}), not posted.`;
}

function ledgerBody(ledger: ReviewLedger): HTMLElement {
  return el(
    'div',
    {},
    el('p', { class: 'verdict' }, verdictText(ledger)),
    el(
      'p',
      {},
      `${counts(ledger.counts)} · head ${short(ledger.headSha)} · reviewed at ${short(ledger.lastReviewedSha)} · `,
      el('a', { href: ledger.url, rel: 'noopener noreferrer' }, 'the pull request on GitHub'),
      ' · ',
      el('a', { href: `#/threads/${ledger.threadId}` }, "the reviewer's thread"),
    ),
    ledger.findings.length === 0
      ? el('p', {}, 'No finding on this pull request.')
      : dataTable(
          { class: 'findings' },
          `${ledger.findings.length} finding${ledger.findings.length === 1 ? '' : 's'}`,
          ['Severity', 'Finding', 'Raised by', 'Status', 'Where', 'Links'],
          ledger.findings.map(findingRow),
        ),
  );
}

/** One pull request's ledger: every finding (Caravel's, people's, other bots'), and the verdict. */
function ledgerView(owner: string, repo: string, number: string): HTMLElement {
  const body = el('div', { 'aria-live': 'polite' }, el('p', {}, 'Loading the ledger…'));
  const path = [owner, repo, number].map(encodeURIComponent).join('/');
  api<ReviewLedger>(`/api/reviews/${path}`).then(
    (ledger) => show(body, ledgerBody(ledger)),
    (error: unknown) => show(body, errorView(error)),
  );
  return el(
    'section',
    { 'aria-labelledby': 'page-title' },
    el('p', {}, el('a', { href: '#/reviews' }, '← All reviews')),
    el('h1', { id: 'page-title', tabindex: -1 }, `Review of ${owner}/${repo}#${number}`),
    body,
  );
}

/** `#/reviews[?repo=owner/name]` (the list) or `#/reviews/<owner>/<repo>/<number>` (a ledger). */
export function reviewsView(path: string[], query: URLSearchParams): HTMLElement {
  const [owner, repo, number] = path;
  return owner && repo && number ? ledgerView(owner, repo, number) : reviewListView(query);
}
