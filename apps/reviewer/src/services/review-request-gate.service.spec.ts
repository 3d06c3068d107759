import { ReviewRequestedV1, type GithubActorFacts } from '@caravel/contracts';
import { describe, expect, it } from '@jest/globals';
import { reviewerConfigOf, reviewerEnvSchema } from '../reviewer.config.js';
import { ReviewRequestGate } from './review-request-gate.service.js';

/** Without a GitHub App: membership cannot be asked, so only the payload can admit. */
const gate = (env: Record<string, string> = {}) =>
  new ReviewRequestGate(reviewerConfigOf(reviewerEnvSchema.parse(env)));

function openedBy(actor?: Partial<GithubActorFacts>) {
  const fixture = ReviewRequestedV1.fixture();
  const githubActor: GithubActorFacts = {
    login: 'mallory',
    userType: 'User',
    association: 'CONTRIBUTOR',
    repository: { owner: 'acme', name: 'widgets', private: false, ownerIsOrganization: true },
    ...actor,
  };
  return ReviewRequestedV1.create(
    { ...fixture.data, ...(actor ? { githubActor } : {}) },
    { source: 'ingress' },
  );
}

describe('ReviewRequestGate', () => {
  it('refuses a pull request whose author is not vouched for on a public organization repository', async () => {
    expect(await gate().admits(openedBy({}))).toBe(false);
  });

  it('admits a member, a bot, a private repository, the gate turned off, and a request without facts', async () => {
    expect(await gate().admits(openedBy({ association: 'MEMBER' }))).toBe(true);
    expect(await gate().admits(openedBy({ userType: 'Bot', login: 'dependabot[bot]' }))).toBe(true);
    const privateRepo = {
      owner: 'acme',
      name: 'widgets',
      private: true,
      ownerIsOrganization: true,
    };
    expect(await gate().admits(openedBy({ repository: privateRepo }))).toBe(true);
    expect(await gate({ PUBLIC_REPO_ORG_GATE: 'false' }).admits(openedBy({}))).toBe(true);
    expect(await gate().admits(openedBy())).toBe(true);
  });
});
