import { githubReviewThreadId, githubThreadId } from '@caravel/contracts';
import { createRequire } from 'node:module';
import { mapGithubEvent, type GithubMapperSettings } from './github-event.mapper.js';
import { AutoReviewRepositories, GithubRepositoryPolicy } from './github-repository-policy.js';
import { githubPayload } from './payload.factory.js';

/** GitHub's own example payloads (`@octokit/webhooks-examples`), by event and action. */
function example(event: string, action: string): Record<string, unknown> {
  const examples = createRequire(import.meta.url)(
    '@octokit/webhooks-examples/api.github.com/index.json',
  ) as { name: string; examples: Record<string, unknown>[] }[];
  const found = examples
    .find((entry) => entry.name === event)
    ?.examples.find((payload) => payload['action'] === action);
  if (!found) throw new Error(`no ${event}.${action} example`);
  return structuredClone(found);
}

const base: GithubMapperSettings = { botHandle: 'caravel' };
const map = (event: string, payload: unknown, settings: Partial<GithubMapperSettings> = {}) =>
  mapGithubEvent({ event, deliveryId: 'guid-9', payload }, { ...base, ...settings });

describe('the repository allowlist', () => {
  const policy = new GithubRepositoryPolicy(['Acme'], ['octocat/Hello-World']);

  it('is open when both lists are empty', () => {
    expect(new GithubRepositoryPolicy([], []).refusal({ owner: 'x', name: 'y' })).toBeNull();
  });

  it('admits an allowed owner or repository, whatever the case, and refuses the rest', () => {
    expect(policy.refusal({ owner: 'acme', name: 'anything' })).toBeNull();
    expect(policy.refusal({ owner: 'Octocat', name: 'hello-world' })).toBeNull();
    expect(policy.refusal({ owner: 'octocat', name: 'other' })).toMatch(/ALLOWED_GITHUB_REPOS/);
  });

  it('ignores every event of a repository that is not allowed, CI events included', () => {
    const repositories = new GithubRepositoryPolicy(['someone-else'], []);
    const comment = githubPayload.issueComment('@caravel fix it', { pr: true });
    expect(map('issue_comment', comment, { repositories })).toMatchObject({
      kind: 'ignore',
      reason: expect.stringContaining('acme/widgets') as unknown,
    });
    expect(map('check_run', githubPayload.checkRun([7]), { repositories })).toMatchObject({
      kind: 'ignore',
    });
    expect(map('issue_comment', comment)).toMatchObject({ kind: 'trigger' });
  });
});

describe('the actor of a trigger', () => {
  it('carries what the public-repository gate needs, read from the payload', () => {
    const payload = example('issue_comment', 'created');
    const comment = payload['comment'] as { body: string };
    comment.body = 'please @caravel have a look';
    expect(map('issue_comment', payload)).toMatchObject({
      kind: 'trigger',
      actorCheck: {
        repository: {
          owner: 'Codertocat',
          name: 'Hello-World',
          ownerIsOrganization: false,
          private: false,
        },
        login: 'Codertocat',
        userType: 'User',
        association: 'OWNER',
      },
    });
  });

  it('names the sender of an assignment, who has no association in the payload', () => {
    const assigned = githubPayload.issues('assigned', {
      assignee: { login: 'caravel[bot]', type: 'Bot' },
    });
    expect(map('issues', assigned)).toMatchObject({
      kind: 'trigger',
      actorCheck: { login: 'octocat', repository: { ownerIsOrganization: true } },
    });
  });
});

describe('pull request events', () => {
  const autoReview = new AutoReviewRepositories(['codertocat/*', 'acme/widgets']);

  it.each(['opened', 'ready_for_review'])(
    'asks for a review on %s when the repository opted in',
    (action) => {
      const decision = map('pull_request', example('pull_request', action), { autoReview });
      const ref = { owner: 'Codertocat', repo: 'Hello-World', number: 2 };
      expect(decision).toMatchObject({
        kind: 'review',
        event: `pull_request.${action}`,
        threadId: githubReviewThreadId(ref),
        pullRequestThreadId: githubThreadId(ref),
        repository: { owner: 'Codertocat', name: 'Hello-World' },
        pullRequest: { number: 2, draft: false },
        author: { externalId: 'Codertocat' },
        reason: action,
        actorCheck: { login: 'Codertocat', association: 'OWNER' },
      });
      expect(decision.kind === 'review' && decision.threadId).not.toBe(githubThreadId(ref));
    },
  );

  it('asks for nothing on a repository that did not opt in', () => {
    const decision = map('pull_request', example('pull_request', 'opened'), {
      autoReview: new AutoReviewRepositories(['acme/widgets']),
    });
    expect(decision).toMatchObject({
      kind: 'ignore',
      reason: expect.stringMatching(/AUTO_REVIEW_REPOS/) as unknown,
    });
    expect(map('pull_request', example('pull_request', 'opened'))).toMatchObject({
      kind: 'ignore',
    });
  });

  it('reviews a draft only when the team reviews drafts', () => {
    const draft = githubPayload.pullRequest('opened', { draft: true });
    expect(map('pull_request', draft, { autoReview })).toMatchObject({
      kind: 'ignore',
      reason: expect.stringMatching(/AUTO_REVIEW_DRAFT_PRS/) as unknown,
    });
    expect(map('pull_request', draft, { autoReview, autoReviewDrafts: true })).toMatchObject({
      kind: 'review',
      pullRequest: { number: 7, draft: true },
    });
  });

  it('gives the same head the same semantic key, and a new head a new one', () => {
    const first = map('pull_request', githubPayload.pullRequest('opened'), { autoReview });
    const again = map('pull_request', githubPayload.pullRequest('ready_for_review'), {
      autoReview,
    });
    const moved = githubPayload.pullRequest('ready_for_review');
    moved.pull_request.head.sha = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
    const later = map('pull_request', moved, { autoReview });
    const key = (d: ReturnType<typeof map>) => (d.kind === 'review' ? d.semanticKey : null);
    expect(key(first)).toBe(key(again));
    expect(key(later)).not.toBe(key(first));
  });

  it('tells the pull request thread its new head on synchronize', () => {
    expect(map('pull_request', example('pull_request', 'synchronize'))).toMatchObject({
      kind: 'head',
      event: 'pull_request.synchronize',
      threadId: githubThreadId({ owner: 'Codertocat', repo: 'Hello-World', number: 2 }),
      pullRequest: 2,
      headSha: expect.stringMatching(/^[0-9a-f]{40}$/) as unknown,
      previousSha: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e',
    });
  });
});
