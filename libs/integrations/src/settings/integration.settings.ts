import { createPrivateKey } from 'node:crypto';
import { documented, flag } from '@caravel/config';
import { z } from 'zod';
import { DEFAULT_MAX_TEXT_CHARS } from '../web/host-web.js';
import { HostAllowlist } from '../web/host-allowlist.js';
import { WEB_DEFAULTS } from '../web/safe-http-client.js';
import { TAVILY_API_URL } from '../web/tavily-search.js';

const secret = (description: string) =>
  documented(z.string().min(1).optional(), { description, secret: true });

/** A PEM from an environment variable: literal `\n` sequences stand for newlines. */
const pem = z
  .string()
  .min(1)
  .transform((value) => value.replace(/\\n/g, '\n'))
  .refine(
    (value) => {
      try {
        createPrivateKey(value);
        return true;
      } catch {
        return false;
      }
    },
    { message: 'not a PEM private key' },
  );

/** Where repositories are cloned from when `GITHUB_HOST` is not set. */
export const DEFAULT_GITHUB_HOST = 'https://github.com';

/**
 * The GitHub App Caravel acts as, and where that GitHub lives. Shared by the agent runner (pull
 * requests, comments) and the sandbox broker (clone and push through the credential proxy), and
 * so by the embedded host. Without an App, GitHub repositories are worked on locally only.
 */
export const githubAppSettingsSchema = z.object({
  GITHUB_APP_ID: documented(z.string().regex(/^\d+$/, 'a numeric App id').optional(), {
    description: 'GitHub App id: installation tokens for pull requests, comments and git pushes',
  }),
  GITHUB_APP_PRIVATE_KEY: documented(pem.optional(), {
    description: 'The GitHub App private key (PEM; \\n escapes allowed)',
    secret: true,
  }),
  GITHUB_API_URL: documented(z.url().default('https://api.github.com'), {
    description: 'GitHub REST API root (GHES: https://<host>/api/v3)',
  }),
  GITHUB_HOST: documented(z.url().default(DEFAULT_GITHUB_HOST), {
    description: 'GitHub web/git root repositories are cloned from and pushed to',
  }),
});

/**
 * Who may have Caravel act, decided where the GitHub App is held: dispatch's trigger intake
 * (both keys) and the reviewer's review requests (the gate). The ingress asks nothing.
 */
export const accessSettingsSchema = z.object({
  PUBLIC_REPO_ORG_GATE: documented(flag(true), {
    description:
      'On public repositories only members of the owning organization (and bots) may address Caravel; dispatch (and the reviewer, for auto-reviews) checks the membership as the GitHub App before anything is created',
  }),
  PUBLIC_REPO_GATE_CACHE_SECONDS: documented(
    z.coerce.number().int().min(0).max(3600).default(300),
    {
      description:
        "How long the public-repository gate (dispatch's and the reviewer's) keeps GitHub's answer whether an author belongs to the repository's organization, yes or no (a failed question is never kept); someone who joins or leaves is answered as before this long at most; 0: ask every time",
    },
  ),
  REPOSITORY_ACCESS_CHECK: documented(z.enum(['github', 'off']).default('github'), {
    description:
      "github: a Slack, Linear, Jira or Confluence trigger on a repository a person chose (repo:owner/name, not the place's route or default), follow-ups in its thread included, is taken only when its author's linked GitHub account can see it (dispatch asks GitHub as the App); off: every chat member may use every allowed repository",
  }),
});

/**
 * Development fallback for GitHub comments (replies) and reviews where no GitHub App is
 * configured, read by the processes that reply or review (the agent runner, dispatch, the reviewer). The App wins whenever it is set; pull
 * requests and pushes always need the App.
 */
export const githubTokenSettingsSchema = z.object({
  GITHUB_TOKEN: secret(
    'Development only: a static GitHub token replies and reviews go out with when GITHUB_APP_ID/GITHUB_APP_PRIVATE_KEY are unset (the App wins when set)',
  ),
});

/**
 * Caravel's own GitHub login (the App's `<slug>[bot]`, or a token owner's login), `caravel[bot]`
 * by default: a fresh schema per key, as `documented` keys its description by schema.
 */
export function caravelGithubLoginSchema() {
  return z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]*(\[bot\])?$/, 'a GitHub login, e.g. caravel[bot]')
    .default('caravel[bot]');
}

/** The SaaS channels a run answers in and its tools reach, plus the token keyring. */
export const channelSettingsSchema = z.object({
  SLACK_BOT_TOKEN: secret('Slack bot token (xoxb-...): replies and tools for Slack threads'),
  SLACK_API_URL: documented(z.url().optional(), {
    description: 'Slack Web API root (default https://slack.com/api/)',
  }),
  LINEAR_API_KEY: secret('Linear API key: replies and tools for Linear issues'),
  LINEAR_API_URL: documented(z.url().optional(), {
    description: 'Linear GraphQL endpoint (default https://api.linear.app/graphql)',
  }),
  JIRA_BASE_URL: documented(z.url().optional(), {
    description:
      'Jira Cloud site, e.g. https://acme.atlassian.net: the only site Jira rule deliveries may name',
  }),
  JIRA_EMAIL: documented(z.string().min(1).optional(), {
    description:
      'Jira service account email (Basic auth with JIRA_API_TOKEN): rule deliveries are read back, answered and the jira tools act as this account',
  }),
  JIRA_API_TOKEN: secret('Jira service account API token'),
  CONFLUENCE_EMAIL: documented(z.string().min(1).optional(), {
    description:
      'Confluence service account email: comments are re-fetched, answered and the wiki tools act as this account',
  }),
  CONFLUENCE_API_TOKEN: secret('Confluence service account API token'),
  CARAVEL_TOKEN_KEYS: secret(
    'Keyring for tokens at rest: id:base64(32 bytes), comma separated, current key first',
  ),
});

/** `WEB_ALLOWED_HOSTS`: comma-separated host names, IP literals or `*.domain` entries. */
const allowedHosts = z
  .string()
  .default('')
  .refine(
    (value) => {
      try {
        HostAllowlist.parse(value);
        return true;
      } catch {
        return false;
      }
    },
    { message: 'comma-separated host names, IP literals or *.domain entries' },
  );

/** The agent's web tools (`http_request`, `fetch_url`, `web_search`), run from the host. */
export const webSettingsSchema = z.object({
  WEB_ALLOWED_HOSTS: documented(allowedHosts, {
    description:
      'Internal hosts the web tools may reach despite resolving to private/loopback addresses (comma-separated names, IPs or *.domain; metadata addresses stay refused)',
  }),
  WEB_TIMEOUT_MS: documented(z.coerce.number().int().positive().default(WEB_DEFAULTS.timeoutMs), {
    description: 'Longest web tool request, redirects and body included, in milliseconds',
  }),
  WEB_MAX_RESPONSE_BYTES: documented(
    z.coerce.number().int().positive().default(WEB_DEFAULTS.maxResponseBytes),
    { description: 'Bytes of a (decompressed) response body the web tools read; the rest is cut' },
  ),
  WEB_MAX_TEXT_CHARS: documented(
    z.coerce.number().int().positive().default(DEFAULT_MAX_TEXT_CHARS),
    { description: 'Characters of a response the model reads from http_request and fetch_url' },
  ),
  TAVILY_API_KEY: secret('Tavily API key (tvly-...) for the web_search tool'),
  TAVILY_API_URL: documented(z.url().default(TAVILY_API_URL), {
    description: 'Tavily Search API root',
  }),
});

/** Parsed {@link githubAppSettingsSchema}. */
export type GitHubAppSettings = z.output<typeof githubAppSettingsSchema>;
/** Parsed {@link githubTokenSettingsSchema}. */
export type GitHubTokenSettings = z.output<typeof githubTokenSettingsSchema>;
/** Parsed {@link channelSettingsSchema}. */
export type ChannelSettings = z.output<typeof channelSettingsSchema>;
/** Parsed {@link webSettingsSchema}. */
export type WebSettings = z.output<typeof webSettingsSchema>;
