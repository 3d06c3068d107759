import { describe, expect, it, jest } from '@jest/globals';
import type {
  FindingRepository,
  ReviewStyleRepository,
  UserInstructionsRepository,
} from '@caravel/db';
import type { GitHubReviews, GitHubScmReader } from '@caravel/integrations';
import { factory } from '@caravel/db/testing';
import { strictMock } from '@caravel/testing/doubles';
import type { PullRequestDetails } from '@caravel/tools';
import type { ReviewSandboxService } from '../preparation/review-sandbox.service.js';
import {
  isOwnPullRequest,
  mayApproveClean,
  ReviewRunsService,
  type ReviewJob,
} from './review-runs.service.js';

const HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

const job: ReviewJob = {
  threadId: 'b2b8a7f0-27cc-5a5e-9b3c-0f7ae6f5c5a1',
  repository: { owner: 'acme', name: 'widgets' },
  number: 7,
  headSha: HEAD,
  author: 'alice',
  verdictRequested: false,
  requestedBy: null,
  instructions: null,
};

function pullRequest(state: string): PullRequestDetails {
  return {
    number: 7,
    title: 'Fix parser',
    body: '',
    author: 'alice',
    state,
    draft: false,
    url: 'https://github.com/acme/widgets/pull/7',
    head: { ref: 'fix', sha: HEAD, repository: { owner: 'acme', name: 'widgets' } },
    base: { ref: 'main', sha: 'a'.repeat(40) },
  };
}

/** The service over strict doubles: GitHub says the pull request is `state`. */
function setup(state: string) {
  const noteSkip = jest.fn<FindingRepository['noteSkip']>(() =>
    Promise.resolve(factory.reviewLedger()),
  );
  const getPullRequest = jest.fn<GitHubScmReader['getPullRequest']>(() =>
    Promise.resolve(pullRequest(state)),
  );
  const service = new ReviewRunsService(
    strictMock<FindingRepository>({ noteSkip }, 'findings'),
    strictMock<ReviewSandboxService>({}, 'sandboxes'),
    strictMock<ReviewStyleRepository>({}, 'styles'),
    strictMock<UserInstructionsRepository>({}, 'people'),
    {
      integrations: {
        reviews: () => strictMock<GitHubReviews>({}, 'reviews'),
        scmHistory: () => strictMock<GitHubScmReader>({ getPullRequest }, 'reader'),
      },
      model: () => Promise.reject(new Error('no model call expected')),
      botLogin: 'caravel-bot',
    },
  );
  return { service, noteSkip, getPullRequest };
}

describe('ReviewRunsService', () => {
  it.each(['merged', 'closed'])(
    'reviews nothing on a pull request %s before the run, and says so on the ledger',
    async (state) => {
      const { service, noteSkip, getPullRequest } = setup(state);
      expect(await service.review(job)).toBeNull();
      expect(getPullRequest).toHaveBeenCalledWith(7);
      // No sandbox, no model, nothing published: the strict doubles would throw.
      expect(noteSkip).toHaveBeenCalledWith(job.threadId, {
        reason: `the pull request is ${state}`,
        sha: HEAD,
      });
    },
  );

  it('refuses a repository no GitHub credential reaches, before reading anything', async () => {
    const service = new ReviewRunsService(
      strictMock<FindingRepository>({}, 'findings'),
      strictMock<ReviewSandboxService>({}, 'sandboxes'),
      strictMock<ReviewStyleRepository>({}, 'styles'),
      strictMock<UserInstructionsRepository>({}, 'people'),
      {
        integrations: { reviews: () => null, scmHistory: () => null },
        model: () => Promise.reject(new Error('no model call expected')),
        botLogin: 'caravel-bot',
      },
    );
    await expect(service.review(job)).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
  });

  it("takes a pull request as Caravel's own by its author as read, else the trigger's, else unknown", () => {
    const own = (trigger: string | null, read: string | null) =>
      isOwnPullRequest({ author: trigger }, { author: read }, 'caravel-bot');
    // A push names no author: the pull request read says it is a person's.
    expect(own(null, 'alice')).toBe(false);
    expect(own('alice', 'Caravel-Bot')).toBe(true);
    expect(own('alice', null)).toBe(false);
    expect(own(null, null)).toBe(true);
  });

  it("approves a clean review only of the repository's own people's pull requests, where the repository enables it", () => {
    // A stranger's pull request is the text the reviewer's model reads: its clean review says
    // nothing was found, never that it may go in.
    for (const association of ['OWNER', 'MEMBER', 'COLLABORATOR']) {
      expect(mayApproveClean(true, { association })).toBe(true);
      expect(mayApproveClean(false, { association })).toBe(false);
    }
    for (const association of ['NONE', 'CONTRIBUTOR', 'FIRST_TIME_CONTRIBUTOR', undefined]) {
      expect(mayApproveClean(true, association ? { association } : {})).toBe(false);
    }
  });
});
