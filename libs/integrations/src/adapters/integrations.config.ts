import {
  DEFAULT_GITHUB_HOST,
  type ChannelSettings,
  type GitHubAppSettings,
  type GitHubTokenSettings,
  type WebSettings,
} from '../settings/integration.settings.js';
import { HostAllowlist } from '../web/host-allowlist.js';
import type { WebPortsConfig } from '../web/web-ports.js';

/** Where the configured GitHub lives and who Caravel acts as there. */
export interface GitHubConfig {
  /** The REST API root (`https://api.github.com`, a GHES `/api/v3`, or a loopback fake). */
  apiUrl: string;
  /** The web and git root repositories are cloned from and pushed to. */
  webUrl: string;
  /** The GitHub App Caravel acts as: installation tokens for comments, pull requests, pushes. */
  app?: { id: string; privateKey: string };
  /**
   * Development fallback only: a static token comments go out with when no App is configured.
   * Pull requests and pushes still need the App.
   */
  developmentToken?: string;
}

/** The Slack workspace's bot. */
export interface SlackConfig {
  botToken?: string;
  /** The Web API root, ending with `/` (default `https://slack.com/api/`). */
  apiUrl?: string;
}

/** The Linear workspace's API key. */
export interface LinearConfig {
  apiKey?: string;
  /** The GraphQL endpoint (default `https://api.linear.app/graphql`). */
  apiUrl?: string;
}

/** The Jira Cloud site and its service account. */
export interface JiraConfig {
  baseUrl?: string;
  email?: string;
  apiToken?: string;
}

/** The Confluence service account (the site is each Connect tenant's own). */
export interface ConfluenceConfig {
  email?: string;
  apiToken?: string;
}

/** Every external system's configuration, as {@link IntegrationAdapters} takes it. */
export interface IntegrationsConfig {
  github: GitHubConfig;
  slack: SlackConfig;
  linear: LinearConfig;
  jira: JiraConfig;
  confluence: ConfluenceConfig;
}

/**
 * The parsed environment keys an app may hold: GitHub's API root always (it has a default), the
 * rest when the app reads them (ingress has no `GITHUB_HOST`: it makes no hosting decision).
 */
export type IntegrationEnvironment = Pick<GitHubAppSettings, 'GITHUB_API_URL'> &
  Partial<GitHubAppSettings & GitHubTokenSettings & Omit<ChannelSettings, 'CARAVEL_TOKEN_KEYS'>>;

/** Only the keys that are set, so an absent value stays absent (not `undefined`). */
function present<T extends Record<string, string | undefined>>(
  values: T,
): { [K in keyof T]?: string } {
  return Object.fromEntries(
    Object.entries(values).filter(([, value]) => value !== undefined && value !== ''),
  ) as { [K in keyof T]?: string };
}

/** The GitHub slice of the parsed environment (the broker needs this one alone). */
export function githubConfigOf(env: IntegrationEnvironment): GitHubConfig {
  const { GITHUB_APP_ID: id, GITHUB_APP_PRIVATE_KEY: privateKey } = env;
  return {
    apiUrl: env.GITHUB_API_URL.replace(/\/$/, ''),
    webUrl: env.GITHUB_HOST ?? DEFAULT_GITHUB_HOST,
    ...(id && privateKey ? { app: { id, privateKey } } : {}),
    ...present({ developmentToken: env.GITHUB_TOKEN }),
  };
}

/**
 * Why Caravel cannot act on GitHub `to` do something (neither the App nor the development token
 * is configured), or null when it can: the reason a service that needs GitHub gives for staying off.
 */
export function githubCredentialMissing(github: GitHubConfig, to: string): string | null {
  if (github.app || github.developmentToken) return null;
  return `no GitHub credential ${to} (set GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY, or GITHUB_TOKEN in development)`;
}

/** The web tools' slice of the parsed environment. */
export function webPortsConfigOf(env: WebSettings): WebPortsConfig {
  return {
    allowedHosts: HostAllowlist.parse(env.WEB_ALLOWED_HOSTS),
    timeoutMs: env.WEB_TIMEOUT_MS,
    maxResponseBytes: env.WEB_MAX_RESPONSE_BYTES,
    maxTextChars: env.WEB_MAX_TEXT_CHARS,
    tavily: { ...present({ apiKey: env.TAVILY_API_KEY }), apiUrl: env.TAVILY_API_URL },
  };
}

/**
 * The typed slices of a parsed environment: the one place the integrations' environment keys
 * are read. Each app maps its settings once, at wiring time, and hands the result to
 * {@link IntegrationAdapters}.
 */
export function integrationsConfigOf(env: IntegrationEnvironment): IntegrationsConfig {
  return {
    github: githubConfigOf(env),
    slack: present({ botToken: env.SLACK_BOT_TOKEN, apiUrl: env.SLACK_API_URL }),
    linear: present({ apiKey: env.LINEAR_API_KEY, apiUrl: env.LINEAR_API_URL }),
    jira: present({
      baseUrl: env.JIRA_BASE_URL,
      email: env.JIRA_EMAIL,
      apiToken: env.JIRA_API_TOKEN,
    }),
    confluence: present({ email: env.CONFLUENCE_EMAIL, apiToken: env.CONFLUENCE_API_TOKEN }),
  };
}
