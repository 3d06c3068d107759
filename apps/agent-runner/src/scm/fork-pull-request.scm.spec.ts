import type {
  PullRequestDetails,
  PullRequestDraft,
  PullRequestText,
  ScmPort,
} from '@caravel/tools';
import { strictMock } from '@caravel/testing/doubles';
import { ForkPullRequestScm } from './fork-pull-request.scm.js';

const PULL: PullRequestDetails = {
  number: 8,
  title: 'From a fork',
  body: '',
  author: 'someone',
  state: 'open',
  draft: false,
  url: 'https://github.example/acme/widgets/pull/8',
  head: { ref: 'patch-1', sha: 'c'.repeat(40), repository: { owner: 'someone', name: 'widgets' } },
  base: { ref: 'release-2', sha: 'b'.repeat(40) },
};
const OPENED = { number: 12, url: 'https://github.example/acme/widgets/pull/12', draft: true };

/** The fork's SCM over a strict inner SCM that records what it was asked to open and update. */
function forkScm(pull: PullRequestDetails = PULL) {
  const drafts: PullRequestDraft[] = [];
  const updates: PullRequestText[] = [];
  const told: number[] = [];
  const inner = strictMock<ScmPort>(
    {
      openPullRequest: (draft) => Promise.resolve(void drafts.push(draft)).then(() => OPENED),
      updatePullRequest: (_number, text) =>
        Promise.resolve(void updates.push(text)).then(() => OPENED),
    },
    'scm',
  );
  const scm = new ForkPullRequestScm(inner, pull, (opened) =>
    Promise.resolve(void told.push(opened.number)),
  );
  return { scm, drafts, updates, told };
}

describe("a fork's pull request SCM", () => {
  it('opens against the fork pull request base, says what it builds on once, and tells of it', async () => {
    const { scm, drafts, updates, told } = forkScm();

    await scm.openPullRequest({ branch: 'caravel/t', title: 'Fix', body: '' });
    const noted = drafts[0]?.body ?? '';
    await scm.updatePullRequest(12, { title: 'Fix', body: noted });
    await scm.updatePullRequest(12, { title: 'Fix', body: 'Rewritten.' });

    expect(drafts[0]).toMatchObject({ branch: 'caravel/t', base: 'release-2' });
    expect(noted).toMatch(/^Builds on #8 \(`patch-1` from someone\/widgets\)/);
    expect(updates.map((u) => u.body)).toEqual([noted, `Rewritten.\n\n---\n${noted}`]);
    expect(told).toEqual([12]);
  });

  it('leaves the base to the repository when the pull request did not name one', async () => {
    const { scm, drafts } = forkScm({ ...PULL, base: { ref: '', sha: '' } });
    await scm.openPullRequest({ branch: 'caravel/t', title: 'Fix', body: 'Done.' });
    expect(drafts[0]).not.toHaveProperty('base');
  });
});
