import type { PullRequestDetails } from '../ports/scm.port.js';

/**
 * An open pull request #7 of `acme/app` whose head branch `feature` (at forty c's) is in the
 * repository itself; `overrides` replace fields.
 */
export function aPullRequest(overrides: Partial<PullRequestDetails> = {}): PullRequestDetails {
  return {
    number: 7,
    title: 'A change',
    body: '',
    author: 'octocat',
    state: 'open',
    draft: false,
    url: `https://github.test/acme/app/pull/${overrides.number ?? 7}`,
    head: { ref: 'feature', sha: 'c'.repeat(40), repository: { owner: 'acme', name: 'app' } },
    base: { ref: 'main', sha: 'b'.repeat(40) },
    ...overrides,
  };
}
