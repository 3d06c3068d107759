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
  type BranchPullRequest,
  type CommitComparison,
} from './github/github-code-host.js';
export {
  GitHubOrgMembership,
  GitHubOrgStandings,
  ORG_STANDING_TTL_MS,
  type OrgStanding,
} from './github/github-org-membership.js';
export {
  GitHubRepositoryAccess,
  type RepositoryPermission,
} from './github/github-repository-access.js';
export {
  CachedRepositoryPermissions,
  REPOSITORY_PERMISSION_TTL_MS,
  type RepositoryPermissionLookup,
} from './github/cached-repository-permissions.js';
export {
  CachedOrgMembership,
  ORG_MEMBERSHIP_TTL_MS,
  PublicRepoGate,
  publicRepoGateOf,
  type OrgMembershipCheck,
} from './github/public-repo-gate.js';
export {
  RepositoryAccessPolicy,
  type AccessRefusal,
  type ChosenRepositoryRequest,
  type GithubLoginLookup,
  type RepositoryAccessCheck,
} from './github/repository-access-policy.js';
export { GitHubScmReader } from './github/github-scm-reader.js';
export {
  GitHubReviews,
  type CheckOutput,
  type CreatedReview,
  type ListedReview,
  type ListedReviewComment,
  type NewReview,
  type NewReviewComment,
  type PullRequestRef,
  type ReviewThread,
} from './github/github-reviews.js';

// Slack (the run's thread: replies, reactions, reading; new threads).
export { SlackApi, codeSlackError, type SlackApiOptions } from './slack/slack-api.js';
export { CARAVEL_SLACK_EVENT, SlackThread, type SlackThreadRef } from './slack/slack-thread.js';
export { SlackAssistantStatus } from './slack/slack-assistant-status.js';

// Linear (issue tracker port plus delete and search).
export { LinearApi, codeLinearError, type LinearApiOptions } from './linear/linear-api.js';
export { LinearTracker } from './linear/linear-tracker.js';

// Tokens at rest (AES-256-GCM, versioned keyring, rotation) and GitHub credentials.
export {
  gcmOpen,
  gcmSeal,
  parseKeyring,
  TokenCipher,
  type KeyringKey,
  type SealedToken,
} from './crypto/token-cipher.js';
export {
  UserTokenVault,
  type RotationReport,
  type StoredToken,
  type TokenAddress,
} from './crypto/user-token-vault.js';
export { appJwt, GitHubApp, parseRepository, type GitHubAppOptions } from './github/github-app.js';
export {
  defaultAppName,
  GITHUB_APP_EVENTS,
  GITHUB_APP_PERMISSIONS,
  GITHUB_SIGN_IN_CALLBACK_PATH,
  GITHUB_WEBHOOK_PATH,
  githubAppManifest,
  type GithubAppManifest,
  type GithubAppManifestOptions,
  type GithubAppPermission,
  type GithubPermissionLevel,
} from './github/app-manifest.js';
export {
  GitHubCredentials,
  type GitHubCredentialsOptions,
  type InstallationTokenSource,
  type ResolvedGitHubToken,
  type UserTokenReader,
} from './github/github-credentials.js';
export { IdentityDirectory, type SourceActor } from './identity/identity-directory.js';

// Atlassian: Jira (ADF ↔ markdown) over a Basic-auth REST client.
export {
  AtlassianRest,
  unexpectedAnswer,
  type AtlassianRestOptions,
} from './atlassian/atlassian-rest.js';
export {
  JIRA_IDEMPOTENCY_PROPERTY,
  JiraTracker,
  type JiraComment,
} from './atlassian/jira-tracker.js';
export { JIRA_SERVICE_ACCOUNT_SETTINGS, jiraConfigured } from './atlassian/jira-service-account.js';
export { adfToMarkdown, markdownToAdf, type AdfNode } from './markup/adf.js';
export { markdownToStorage, storageToMarkdown } from './markup/storage-format.js';

// A reply channel (built by IntegrationAdapters): answers where the thread came from, once per
// run and text.
export { SourceReplyChannel, type ThreadSource } from './reply/source-reply-channel.js';
export { acknowledgeReceipt, type ReceiptOutcome } from './reply/source-receipt.js';

// The one way to build an adapter: typed configuration slices in, reply channels, code hosts,
// trackers and Slack threads out, with one GitHub credential model (person, App, dev token).
export {
  IntegrationAdapters,
  type ExternalSystem,
  type IntegrationAdaptersOptions,
  type ReplyChannelOptions,
} from './adapters/integration-adapters.js';
export {
  githubConfigOf,
  githubCredentialMissing,
  integrationsConfigOf,
  webPortsConfigOf,
  type ConfluenceConfig,
  type GitHubConfig,
  type IntegrationEnvironment,
  type IntegrationsConfig,
  type JiraConfig,
  type LinearConfig,
  type SlackConfig,
} from './adapters/integrations.config.js';

// Settings shared by the runner, the reviewer, the broker and the embedded host (GitHub, the
// channels, the web tools, the models); which repositories are GitHub's.
export {
  accessSettingsSchema,
  caravelGithubLoginSchema,
  channelSettingsSchema,
  githubAppSettingsSchema,
  githubTokenSettingsSchema,
  webSettingsSchema,
  type ChannelSettings,
  type GitHubAppSettings,
  type GitHubTokenSettings,
  type WebSettings,
} from './settings/integration.settings.js';
export {
  checkModelKeys,
  modelCredentialsOf,
  modelSettingsSchema,
  serviceModelConfigOf,
  serviceModelOf,
  type ModelSettings,
  type ServiceModel,
  type ServiceModelConfig,
} from './settings/model.settings.js';
export { GitHubHosting, type HostedRepositoryRef } from './github/github-hosting.js';

// Confluence: comments read back as the service account (Connect webhooks are pointers only),
// pages, search and replies (storage format ↔ markdown).
export { CONFLUENCE_IDEMPOTENCY_PROPERTY } from './confluence/confluence-content.js';
export {
  ConfluenceWiki,
  type ConfluenceWikiOptions,
  type WikiComment,
} from './confluence/confluence-wiki.js';

// The agent's web from the host: SSRF-guarded HTTP (public addresses, pinned, redirects
// re-checked), HTML to readable text, and web search through Tavily.
export {
  classifyAddress,
  describeVerdict,
  type AddressKind,
  type AddressVerdict,
} from './web/address-policy.js';
export { HostAllowlist } from './web/host-allowlist.js';
export { systemResolver, type HostResolver } from './web/guarded-resolver.js';
export {
  SafeHttpClient,
  WEB_DEFAULTS,
  type SafeHttpOptions,
  type SafeRequest,
  type SafeResponse,
} from './web/safe-http-client.js';
export { DEFAULT_MAX_TEXT_CHARS, HostWeb } from './web/host-web.js';
export { htmlToText, type ReadablePage } from './web/html-to-text.js';
export { TAVILY_API_URL, TavilySearch, type TavilySearchOptions } from './web/tavily-search.js';
export { webPorts, type WebPortsConfig } from './web/web-ports.js';
