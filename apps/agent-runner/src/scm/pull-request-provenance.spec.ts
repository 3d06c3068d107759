import { StartRunV1, type DataOf } from '@caravel/contracts';
import { describe, expect, it } from '@jest/globals';
import { strictMock } from '@caravel/testing/doubles';
import type { PullRequestDraft, PullRequestText, ScmPort } from '@caravel/tools';
import {
  PROVENANCE_MARKER,
  ProvenanceScm,
  provenanceLine,
  withProvenance,
} from './pull-request-provenance.js';

const run = (data: Partial<DataOf<typeof StartRunV1>> = {}) => ({
  ...StartRunV1.fixture().data,
  ...data,
});

describe('pull request provenance', () => {
  it('names a GitHub requester by mention and the issue or pull request asked on', () => {
    expect(provenanceLine(run({ source: 'github', replyTo: { issue: 12 } }))).toBe(
      'Requested by @octocat on #12 · Caravel run `0b8f3a52`',
    );
    expect(
      provenanceLine(run({ source: 'github', replyTo: { pullRequest: 7, reviewCommentId: 3 } })),
    ).toBe('Requested by @octocat on #7 · Caravel run `0b8f3a52`');
  });

  it('names a person of another source as inline code, so their name can mention no one', () => {
    const slack = run({
      source: 'slack',
      requestedBy: { externalId: 'U123', displayName: '@acme/security `x`' },
    });

    expect(provenanceLine(slack)).toBe(
      "Requested by `@acme/security 'x'` in Slack · Caravel run `0b8f3a52`",
    );
    expect(provenanceLine(run({ source: 'linear' }))).toContain('`octocat` in Linear');
  });

  it("rewrites Caravel's part on each update and keeps the agent's body", () => {
    const once = withProvenance('Fixes the parser.\n', 'Requested by @a');
    const again = withProvenance(`${once}\n\nMore notes.`, 'Requested by @b');

    expect(once).toBe(`Fixes the parser.\n\n${PROVENANCE_MARKER}\n---\nRequested by @a`);
    expect(again).toBe(`Fixes the parser.\n\n${PROVENANCE_MARKER}\n---\nRequested by @b`);
    expect(withProvenance('', 'Requested by @a')).toBe(
      `${PROVENANCE_MARKER}\n---\nRequested by @a`,
    );
  });

  it('adds the line to every body it opens or updates, and nothing else', async () => {
    const calls: unknown[] = [];
    const scm = new ProvenanceScm(
      strictMock<ScmPort>(
        {
          openPullRequest: (draft: PullRequestDraft) =>
            Promise.resolve(void calls.push(draft)).then(() => ({
              number: 1,
              url: 'u',
              draft: true,
            })),
          updatePullRequest: (number: number, text: PullRequestText) =>
            Promise.resolve(void calls.push([number, text])).then(() => ({
              number,
              url: 'u',
              draft: true,
            })),
        },
        'scm',
      ),
      run({ source: 'github', replyTo: { issue: 12 } }),
    );

    await scm.openPullRequest({ branch: 'b', title: 'T', body: 'B' });
    await scm.updatePullRequest(1, { title: 'T2', body: 'B2' });

    const line = 'Requested by @octocat on #12 · Caravel run `0b8f3a52`';
    expect(calls).toEqual([
      { branch: 'b', title: 'T', body: withProvenance('B', line) },
      [1, { title: 'T2', body: withProvenance('B2', line) }],
    ]);
  });
});
