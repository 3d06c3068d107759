export {
  LoopbackApi,
  bearerToken,
  rateLimited,
  type Authorizer,
  type CallMatcher,
  type FakeResponse,
  type RecordedCall,
  type RouteHandler,
  type ScriptedFailure,
} from './http/loopback-api.js';
export { githubAppEnv, githubAppKeys } from './github/app-env.js';
export {
  DEFAULT_INSTALLATION_PERMISSIONS,
  FakeGitHub,
  type FakeGitHubOptions,
  type FakeMintedToken,
} from './github/fake-github.js';
export { workflowRefusal } from './github/workflow-guard.js';
export { FakeGithubOAuth, type FakeGithubAccount } from './github/fake-github-oauth.js';
export {
  FakeGithubAppManifest,
  type FakeRegisteredApp,
} from './github/fake-github-app-manifest.js';
export type {
  FakeGitHubComment,
  FakeGitHubPull,
  FakeGitHubReaction,
  GitHubState,
} from './github/github-routes.js';
export { serveGitHttpBackend } from './github/git-cgi-bridge.js';
export type {
  CommentableLines,
  FakeCheckRun,
  FakeReview,
  FakeReviewComment,
  FakeReviewThread,
  GitHubReviewState,
} from './github/review-routes.js';
export type { FakeSourceIssue, FakeSourcePull } from './github/source-pulls.js';
export { FakeSlack, type FakeSlackMessage, type FakeSlackStatus } from './slack/fake-slack.js';
export {
  FakeLinear,
  linearError,
  type FakeLinearComment,
  type FakeLinearIssue,
  type FakeLinearTeam,
} from './linear/fake-linear.js';
export { FakeJira, type FakeJiraComment, type FakeJiraIssue } from './jira/fake-jira.js';
export {
  FakeConfluence,
  type FakeConfluenceComment,
  type FakeConfluencePage,
} from './confluence/fake-confluence.js';
export { FakeTavily, type FakeSearchDocument } from './web-search/fake-tavily.js';
