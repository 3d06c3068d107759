import { AppError } from '@caravel/errors';

/** A permission level a GitHub App asks for. */
export type GithubPermissionLevel = 'read' | 'write';

/**
 * The permissions Caravel's GitHub App asks for, and no other: each is here for calls Caravel
 * makes (said beside it). An installation token is minted per repository with all of them
 * (`GitHubApp.mint`), except the organisation-members token (`members: read` alone).
 * Not asked: `workflows` unless chosen ({@link GithubAppManifestOptions.workflows}: without it
 * GitHub refuses a run's push that changes `.github/workflows/`, and the run says so),
 * `administration`, `secrets`, and any write to commit statuses or Actions.
 */
export const GITHUB_APP_PERMISSIONS = {
  // `workflow_run` deliveries (dispatch's CI babysitting) cannot be subscribed without it; a
  // sandbox may also read its repository's workflow runs and logs through the egress proxy (GET).
  actions: 'read',
  // The reviewer publishes its verdict as a check run (`checks.create`/`update`,
  // github-reviews.ts); the runner reads a head's check runs (`checks.listForRef`); `check_run`
  // and `check_suite` deliveries.
  checks: 'write',
  // The sandbox broker clones and pushes a run's branch (git smart-HTTP through the credential
  // proxy, github-git.ts); the runner and the reviewer read trees, files and comparisons
  // (`git.getTree`, `repos.getContent`, `repos.compareCommitsWithBasehead`).
  contents: 'write',
  // Replies and reactions in an issue's conversation (`issues.createComment`,
  // `reactions.createForIssueComment`, github-code-host.ts), the issue and its comments read
  // (`issues.get`, `issues.listComments`); `issues` and `issue_comment` deliveries.
  issues: 'write',
  // Every App has it: the repository itself (`repos.get`, the default branch) and a person's role
  // on it (`repos.getCollaboratorPermissionLevel`: dispatch's repository access check;
  // `repos.checkCollaborator`: the analyzer weighs only collaborators' reactions to findings).
  metadata: 'read',
  // Draft pull requests opened and updated (`pulls.create`/`update`/`list`/`get`), replies in
  // review threads, the reviewer's reviews (`pulls.createReview`/`dismissReview`), review
  // requests (`pulls.requestReviewers`), comments and reactions on a pull request's
  // conversation; `pull_request`, `pull_request_review` and `pull_request_review_comment` deliveries.
  pull_requests: 'write',
  // A head's commit statuses (`repos.getCombinedStatusForRef`); `status` deliveries.
  statuses: 'read',
  // Organisation: the public-repository gate (dispatch, `orgs.checkMembershipForUser`), the
  // dashboard's check that a member who signed in through an organisation still is one
  // (`orgs.getMembershipForUser`, members-only token) and its sign-in
  // (`/user/memberships/orgs/<org>` with the person's own token, which the App's permissions bound).
  members: 'read',
} as const satisfies Record<string, GithubPermissionLevel>;

/** A permission Caravel's App holds. */
export type GithubAppPermission = keyof typeof GITHUB_APP_PERMISSIONS;

/**
 * The webhook events the App subscribes to: exactly the ones the ingress maps
 * (`apps/ingress/src/events/github-event.mapper.ts`; its spec fails when the two differ), each
 * with the permission GitHub wants before an App may subscribe to it.
 */
export const GITHUB_APP_EVENTS = {
  // A mention in an issue's or a pull request's conversation.
  issue_comment: 'issues',
  // An issue assigned to Caravel or labelled with GITHUB_TRIGGER_LABEL.
  issues: 'issues',
  // Auto-review of an opened or ready pull request; a push tells its thread the new head.
  pull_request: 'pull_requests',
  // A mention in a submitted review or a review comment.
  pull_request_review: 'pull_requests',
  pull_request_review_comment: 'pull_requests',
  // CI results for dispatch's CI babysitting.
  check_run: 'checks',
  check_suite: 'checks',
  status: 'statuses',
  workflow_run: 'actions',
} as const satisfies Record<string, GithubAppPermission>;

/** Where the App's URLs point. */
export interface GithubAppManifestOptions {
  /** The ingress's public base URL: GitHub posts webhooks to `<ingressUrl>/webhooks/github`. */
  ingressUrl: string;
  /**
   * The dashboard's public base URL ("Sign in with GitHub" comes back to
   * `<dashboardUrl>/auth/github/callback`); the ingress's when absent (the embedded host serves
   * both on one port).
   */
  dashboardUrl?: string;
  /** Where GitHub sends the person once the App is registered, with `code` and `state`. */
  redirectUrl?: string;
  /** The App's name (34 characters at most, unique on that GitHub); see {@link defaultAppName}. */
  name?: string;
  /**
   * Also ask for `workflows: write`, so runs may create and change `.github/workflows/` files
   * ("fix our CI"). A deliberate trade-off, off by default: an agent that can change a workflow
   * can make CI run code of its choosing with the repository's secrets, on its branch's push.
   */
  workflows?: boolean;
}

/** GitHub's App manifest, as `POST /settings/apps/new` takes it in its `manifest` field. */
export interface GithubAppManifest {
  name: string;
  url: string;
  description: string;
  hook_attributes: { url: string; active: boolean };
  redirect_url?: string;
  callback_urls: string[];
  public: false;
  request_oauth_on_install: false;
  default_permissions: Record<GithubAppPermission, GithubPermissionLevel> & {
    workflows?: 'write';
  };
  default_events: (keyof typeof GITHUB_APP_EVENTS)[];
}

/** Where the ingress takes GitHub's deliveries. */
export const GITHUB_WEBHOOK_PATH = '/webhooks/github';
/** Where the dashboard's "Sign in with GitHub" comes back (`apps/dashboard`'s CALLBACK_PATH). */
export const GITHUB_SIGN_IN_CALLBACK_PATH = '/auth/github/callback';

/** GitHub's limit on an App's name. */
const MAX_NAME = 34;

/** `base` (an http(s) URL without query or fragment) with `path` after its own path. */
function below(base: string, path: string, what: string): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new AppError('BAD_REQUEST', `${what} is not a URL: ${base}`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash) {
    throw new AppError('BAD_REQUEST', `${what} must be an http(s) URL without query: ${base}`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}${path}`;
}

/** `Caravel <host>`: a name unlikely to be taken on GitHub, which the person may edit there. */
export function defaultAppName(ingressUrl: string): string {
  return `Caravel ${new URL(ingressUrl).hostname}`.slice(0, MAX_NAME).trim();
}

/**
 * The manifest of Caravel's GitHub App: private, webhooks to the ingress, the dashboard's sign-in
 * callback, {@link GITHUB_APP_PERMISSIONS} (and `workflows: write` when asked for) and
 * {@link GITHUB_APP_EVENTS}.
 */
export function githubAppManifest(options: GithubAppManifestOptions): GithubAppManifest {
  const hook = below(options.ingressUrl, GITHUB_WEBHOOK_PATH, 'the ingress URL');
  const dashboard = options.dashboardUrl ?? options.ingressUrl;
  const name = options.name ?? defaultAppName(options.ingressUrl);
  if (name.trim() === '' || name.length > MAX_NAME) {
    throw new AppError('BAD_REQUEST', `a GitHub App's name has 1 to ${MAX_NAME} characters`);
  }
  return {
    name,
    url: below(dashboard, '', 'the dashboard URL'),
    description: 'Caravel: background coding agents for this organisation',
    hook_attributes: { url: hook, active: true },
    ...(options.redirectUrl ? { redirect_url: options.redirectUrl } : {}),
    callback_urls: [below(dashboard, GITHUB_SIGN_IN_CALLBACK_PATH, 'the dashboard URL')],
    public: false,
    request_oauth_on_install: false,
    default_permissions: {
      ...GITHUB_APP_PERMISSIONS,
      ...(options.workflows ? { workflows: 'write' as const } : {}),
    },
    default_events: Object.keys(GITHUB_APP_EVENTS) as GithubAppManifest['default_events'],
  };
}
