export { ReviewerModule } from './reviewer.module.js';
export {
  reviewerConfigOf,
  reviewerConfigSchema,
  reviewerEnvSchema,
  type ReviewerConfig,
} from './reviewer.config.js';
export { OfflineReviewGitHub, type OfflineCheck } from './offline/offline-github.js';
export {
  OFFLINE_REVIEWER_LOGIN,
  reviewOffline,
  usageOfConversation,
  type OfflineReview,
  type OfflineReviewInput,
  type ReviewUsage,
} from './offline/offline-review.js';
export { sandboxGit } from './preparation/sandbox-git.js';
export type { ReviewGit } from './preparation/review-git.js';
export type { PullRequestText } from './preparation/review-context.js';
