export { ReviewerModule } from './reviewer.module.js';
export {
  reviewerConfigOf,
  reviewerConfigSchema,
  reviewerEnvSchema,
  type ReviewerConfig,
} from './reviewer.config.js';
export { OfflineReviewGitHub, type OfflineCheck } from './offline/offline-github.js';
export * from './offline/offline-review.js';
export { sandboxGit } from './preparation/sandbox-git.js';
export type { ReviewGit } from './preparation/review-git.js';
export type { PullRequestText } from './preparation/review-context.js';
