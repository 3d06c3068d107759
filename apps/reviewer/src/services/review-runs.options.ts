import { lazyChatModel, resolveModel } from '@caravel/agent';
import { githubCredentialMissing, IntegrationAdapters } from '@caravel/integrations';
import type { ReviewerKitLoader } from '../agent/reviewer-kit.loader.js';
import type { ReviewerConfig } from '../reviewer.config.js';
import type { ReviewRunsOptions } from './review-runs.service.js';

/** Longest single model call of a review. */
const MODEL_TIMEOUT_MS = 180_000;

/**
 * Why this configuration runs no reviews (review requests then only keep their pull requests'
 * ledgers), or null when it does: a review needs a model and a GitHub credential to publish with.
 */
export function reviewsOffReason(config: ReviewerConfig): string | null {
  if (!config.review.model)
    return 'no reviewer model is configured (set REVIEWER_MODEL or CARAVEL_MODEL)';
  return githubCredentialMissing(config.integrations.github, 'to publish reviews with');
}

/**
 * Whether a repository is among `entries` (`owner/name`, or `owner/*` for all of an owner's;
 * GitHub's names are case-insensitive): the repositories whose clean reviews approve
 * (`REVIEWER_APPROVE_CLEAN_REPOS`). Empty: none.
 */
export function repositoryMatcher(
  entries: readonly string[],
): (repository: { owner: string; name: string }) => boolean {
  const listed = new Set(entries.map((entry) => entry.toLowerCase()));
  return ({ owner, name }) => {
    const who = owner.toLowerCase();
    return listed.has(`${who}/*`) || listed.has(`${who}/${name.toLowerCase()}`);
  };
}

/**
 * The review runs a configuration makes: GitHub through the integrations, and a fresh model per
 * run (a `scripted:` file is read again each time). The client retries a failed call itself: the
 * reviewer's loop has no retry middleware. The first model loads the providers' SDKs (`kit`).
 */
export function reviewRunsOptionsOf(
  config: ReviewerConfig,
  kit: ReviewerKitLoader,
): ReviewRunsOptions {
  const { review } = config;
  const spec = review.model;
  if (!spec) throw new Error(`review runs without a model: ${reviewsOffReason(config)}`);
  const model = resolveModel({ team: { model: spec } });
  return {
    integrations: new IntegrationAdapters(config.integrations),
    botLogin: review.botLogin,
    model: lazyChatModel(kit, model, review.credentials, {
      timeoutMs: MODEL_TIMEOUT_MS,
      fileRoot: review.fileRoot,
    }),
    reReviewOnPush: () => review.reReviewOnPush,
    approveCleanReviews: repositoryMatcher(review.approveCleanRepos),
  };
}

/** Injection token of {@link reviewsOffReason}'s answer, provided when reviews are off. */
export const REVIEWS_OFF = Symbol('caravel.reviews-off');
