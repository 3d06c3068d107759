import {
  CachedRepositoryPermissions,
  IntegrationAdapters,
  type RepositoryPermissionLookup,
} from '@caravel/integrations';
import { Logger, type Provider } from '@nestjs/common';
import { fileURLToPath } from 'node:url';
import { GithubOAuthClient } from './auth/github-oauth.client.js';
import { OrgAdmissionCheck } from './auth/org-admission.check.js';
import { OriginPolicy } from './auth/origin-policy.js';
import { SessionSealer } from './auth/session-sealer.js';
import { REPOSITORY_PERMISSIONS } from './auth/thread-access.policy.js';
import { DASHBOARD_CONFIG, type DashboardConfig } from './dashboard.config.js';
import { WebAssets } from './web-host/web-assets.js';

/** What a test (or another host) may swap in when it registers the dashboard. */
export interface DashboardOptions {
  /** Folder of the built web app; `dist/web` beside this module by default. */
  webRoot?: string;
  /** The clock sessions expire by. */
  now?: () => number;
  /** How the sign-in reaches GitHub. */
  fetch?: typeof fetch;
}

/** The GitHub sign-in client, or null when sign-in is not configured. */
function githubClient(
  signIn: DashboardConfig['signIn'],
  options: DashboardOptions,
): GithubOAuthClient | null {
  if (!signIn.oauth) return null;
  return new GithubOAuthClient({
    ...signIn.oauth,
    webUrl: signIn.webUrl,
    apiUrl: signIn.apiUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/**
 * What the dashboard asks GitHub, as the App (or the development token): who may see which
 * repository (null without any GitHub credential: members are then not checked), and who still
 * belongs to an organisation of `DASHBOARD_ALLOWED_ORGS` (the App alone, answers kept
 * `DASHBOARD_ORG_CHECK_SECONDS`); permission answers kept five minutes.
 */
function githubLookups(config: DashboardConfig): {
  permissions: RepositoryPermissionLookup | null;
  orgs: OrgAdmissionCheck;
} {
  const adapters = new IntegrationAdapters({
    github: config.github,
    slack: {},
    linear: {},
    jira: {},
    confluence: {},
  });
  const access = adapters.repositoryAccess();
  const orgs = new OrgAdmissionCheck(adapters.orgStandings(config.signIn.orgCheckMs));
  if (config.signIn.allowedOrgs.length > 0 && !orgs.asks) {
    new Logger('SignIn').warn(
      'DASHBOARD_ALLOWED_ORGS is set without the GitHub App (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY): someone who leaves an allowed organisation keeps their sessions until they expire or an admin ends them (DELETE /api/sessions/<login>), and their API tokens until they are revoked',
    );
  }
  return { permissions: access ? new CachedRepositoryPermissions(access) : null, orgs };
}

/**
 * The dashboard's configured singletons: configuration, sealer, sign-in client, origins, web
 * files, GitHub's answers on who may see a repository and who belongs to an organisation.
 */
export function dashboardProviders(config: DashboardConfig, options: DashboardOptions): Provider[] {
  const webRoot = options.webRoot ?? fileURLToPath(new URL('./web/', import.meta.url));
  const github = githubLookups(config);
  return [
    { provide: DASHBOARD_CONFIG, useValue: config },
    {
      provide: SessionSealer,
      useValue: new SessionSealer(config.sessions.keys, options.now),
    },
    { provide: GithubOAuthClient, useValue: githubClient(config.signIn, options) },
    { provide: OriginPolicy, useValue: new OriginPolicy(config.origins) },
    { provide: WebAssets, useValue: new WebAssets(webRoot) },
    { provide: REPOSITORY_PERMISSIONS, useValue: github.permissions },
    { provide: OrgAdmissionCheck, useValue: github.orgs },
  ];
}
