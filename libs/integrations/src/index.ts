// Shared HTTP behaviour: coded errors and rate-limit waits.
export {
  notConfigured,
  rateLimitWait,
  retryAfterSeconds,
  serviceError,
  type ServiceFailure,
} from './http/service-errors.js';
export {
  DEFAULT_RETRY_POLICY,
  retryPolicy,
  timerSleep,
  withRateLimitRetry,
  type RetryPolicy,
} from './http/rate-limit-retry.js';
export {
  findMarked,
  hasMarker,
  idempotencyMarker,
  withMarker,
} from './reply/idempotency-marker.js';

// GitHub (behind the SCM port's pull-request half and the review requester).
export {
  GitHubApi,
  codeOctokitError,
  type GitHubApiOptions,
  type GitHubRepository,
  type GitHubTokenProvider,
} from './github/github-client.js';
export {
  GitHubCodeHost,
  type CommentRef,
  type GitHubReaction,
  type PostedComment,
  type PullRequestHost,
} from './github/github-code-host.js';
export { staticGitHubTokens } from './github/github-tokens.js';

// Slack (the run's thread: replies, reactions, reading; new threads).
export { SlackApi, codeSlackError, type SlackApiOptions } from './slack/slack-api.js';
export { CARAVEL_SLACK_EVENT, SlackThread, type SlackThreadRef } from './slack/slack-thread.js';

// Linear (issue tracker port plus delete and search).
export { LinearApi, codeLinearError, type LinearApiOptions } from './linear/linear-api.js';
export { LinearTracker } from './linear/linear-tracker.js';
