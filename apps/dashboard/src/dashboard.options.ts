import {
  CachedRepositoryPermissions,
  IntegrationAdapters,
  type RepositoryPermissionLookup,
} from '@caravel/integrations';
import type { Provider } from '@nestjs/common';
import { fileURLToPath } from 'node:url';
import { GithubOAuthClient } from './auth/github-oauth.client.js';
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
 * Who may see which repository, asked as the App (or the development token), answers kept a few
 * minutes; null without any GitHub credential (members are then not checked).
 */
function repositoryPermissions(
  github: DashboardConfig['github'],
): RepositoryPermissionLookup | null {
  const adapters = new IntegrationAdapters({
    github,
    slack: {},
    linear: {},
    jira: {},
    confluence: {},
  });
  const access = adapters.repositoryAccess();
  return access ? new CachedRepositoryPermissions(access) : null;
}

/** The dashboard's configured singletons: configuration, sealer, sign-in client, origins, web files,
 * GitHub's answers on who may see a repository. */
export function dashboardProviders(config: DashboardConfig, options: DashboardOptions): Provider[] {
  const webRoot = options.webRoot ?? fileURLToPath(new URL('./web/', import.meta.url));
  return [
    { provide: DASHBOARD_CONFIG, useValue: config },
    {
      provide: SessionSealer,
      useValue: new SessionSealer(config.sessions.keys, options.now),
    },
    { provide: GithubOAuthClient, useValue: githubClient(config.signIn, options) },
    { provide: OriginPolicy, useValue: new OriginPolicy(config.origins) },
    { provide: WebAssets, useValue: new WebAssets(webRoot) },
    { provide: REPOSITORY_PERMISSIONS, useValue: repositoryPermissions(config.github) },
  ];
}
