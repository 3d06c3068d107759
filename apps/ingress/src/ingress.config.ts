import {
  commaList,
  distributedServiceSchema,
  documented,
  flag,
  serviceConfigOf,
} from '@caravel/config';
import {
  channelSettingsSchema,
  integrationsConfigOf,
  JIRA_SERVICE_ACCOUNT_SETTINGS,
  jiraConfigured,
  type IntegrationsConfig,
} from '@caravel/integrations';
import { z } from 'zod';

const optionalSecret = (description: string) =>
  documented(z.string().min(1).optional(), { description, secret: true });

const GITHUB_NAME = '[A-Za-z0-9_.-]+';

/** The GitHub slice's API root: the ingress calls no GitHub API (it holds no credential). */
const NO_GITHUB_API = 'https://api.github.com';

/**
 * Ingress's own environment keys, beyond the common service keys. The same keys configure the
 * embedded host (`caravel start`) and the distributed service. An unset secret makes its route
 * answer 401.
 */
export const ingressEnvSchema = z.object({
  GITHUB_WEBHOOK_SECRET: optionalSecret(
    'Secret of the GitHub webhook (X-Hub-Signature-256); /webhooks/github answers 401 while unset',
  ),
  GITHUB_WEBHOOK_SECRET_PREVIOUS: optionalSecret(
    'The previous GITHUB_WEBHOOK_SECRET, still accepted while a rotation reaches every sender; unset it once done',
  ),
  GITHUB_BOT_HANDLE: documented(
    z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, 'a GitHub login, without the @')
      .default('caravel'),
    { description: 'Handle that addresses Caravel in GitHub (and Linear) comments, without the @' },
  ),
  GITHUB_TRIGGER_LABEL: documented(z.string().min(1).optional(), {
    description: 'An issue labeled with this label starts a run (optional)',
  }),
  ALLOWED_GITHUB_ORGS: documented(
    commaList({ pattern: new RegExp(`^${GITHUB_NAME}$`), shape: 'an owner' }),
    {
      description:
        'Comma list of GitHub owners whose repositories Caravel answers (open when this and ALLOWED_GITHUB_REPOS are empty)',
      example: 'acme,acme-labs',
    },
  ),
  ALLOWED_GITHUB_REPOS: documented(
    commaList({ pattern: new RegExp(`^${GITHUB_NAME}/${GITHUB_NAME}$`), shape: 'owner/name' }),
    {
      description:
        'Comma list of owner/name repositories Caravel answers, besides ALLOWED_GITHUB_ORGS',
      example: 'octocat/hello-world',
    },
  ),
  AUTO_REVIEW_REPOS: documented(
    commaList({
      pattern: new RegExp(`^${GITHUB_NAME}/(${GITHUB_NAME}|\\*)$`),
      shape: 'owner/name or owner/*',
    }),
    {
      description:
        'Comma list of owner/name (or owner/*) whose opened and ready-for-review pull requests get a review request',
      example: 'acme/*',
    },
  ),
  AUTO_REVIEW_DRAFT_PRS: documented(flag(false), {
    description: 'Whether draft pull requests on AUTO_REVIEW_REPOS get a review request too',
  }),
  SLACK_SIGNING_SECRET: optionalSecret(
    'Slack app signing secret (v0 signatures); /webhooks/slack answers 401 while unset',
  ),
  SLACK_SIGNING_SECRET_PREVIOUS: optionalSecret(
    'The previous SLACK_SIGNING_SECRET, still accepted while a rotation reaches every sender; unset it once done',
  ),
  SLACK_BOT_USER_ID: documented(z.string().min(1).optional(), {
    description: "Caravel's Slack bot user id (U...), to spot mentions and drop its own messages",
  }),
  LINEAR_WEBHOOK_SECRET: optionalSecret(
    'Linear webhook signing secret (Linear-Signature); /webhooks/linear answers 401 while unset',
  ),
  LINEAR_WEBHOOK_SECRET_PREVIOUS: optionalSecret(
    'The previous LINEAR_WEBHOOK_SECRET, still accepted while a rotation reaches every sender; unset it once done',
  ),
  LINEAR_BOT_USER_ID: documented(z.string().min(1).optional(), {
    description: "Caravel's Linear user id: mentions of it and assignments to it start runs",
  }),
  JIRA_SHARED_SECRET: optionalSecret(
    'Shared secret the Jira Automation rule sends in JIRA_SECRET_HEADER; /webhooks/jira answers 401 while unset',
  ),
  JIRA_SHARED_SECRET_PREVIOUS: optionalSecret(
    'The previous JIRA_SHARED_SECRET, still accepted while the rule is being changed; unset it once done',
  ),
  JIRA_SECRET_HEADER: documented(z.string().min(1).default('x-caravel-secret'), {
    description: 'Header that carries JIRA_SHARED_SECRET',
  }),
  JIRA_HMAC_SECRET: optionalSecret(
    'When set, Jira requests must also carry X-Caravel-Timestamp and an HMAC of timestamp.body in X-Caravel-Signature',
  ),
  JIRA_HMAC_SECRET_PREVIOUS: optionalSecret(
    'The previous JIRA_HMAC_SECRET, still accepted while the rule is being changed; unset it once done',
  ),
  JIRA_BASE_URL: channelSettingsSchema.shape.JIRA_BASE_URL,
  JIRA_EMAIL: channelSettingsSchema.shape.JIRA_EMAIL,
  JIRA_API_TOKEN: channelSettingsSchema.shape.JIRA_API_TOKEN,
  CONFLUENCE_APP_KEY: documented(
    z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, ., _ or -')
      .default('caravel'),
    { description: 'Key of the private Atlassian Connect app (the descriptor and JWT aud)' },
  ),
  CONFLUENCE_BASE_URL: documented(z.url().optional(), {
    description:
      "Caravel's public base URL as the Connect app names it; the /connect routes answer 401 while unset",
    example: 'https://caravel.example.com',
  }),
  CONNECT_KEYS_URL: documented(z.url().default('https://connect-install-keys.atlassian.com'), {
    description: "Atlassian's public keys for signed install callbacks (<url>/<kid>)",
  }),
  CONFLUENCE_EMAIL: channelSettingsSchema.shape.CONFLUENCE_EMAIL,
  CONFLUENCE_API_TOKEN: channelSettingsSchema.shape.CONFLUENCE_API_TOKEN,
  CONFLUENCE_BOT_ACCOUNT_ID: documented(z.string().min(1).optional(), {
    description: "The service account's Atlassian account id: mentions of it start runs",
  }),
  CONNECT_SECRET_KEYS: optionalSecret(
    "Keyring sealing Confluence Connect tenants' shared secrets: id:base64(32 bytes), comma separated, current key first. Its own, never CARAVEL_TOKEN_KEYS (people's tokens); /connect answers 401 while unset",
  ),
  TRUSTED_AUTHORS: documented(
    commaList({ pattern: /^(github|slack|linear|jira|confluence):\S+$/, shape: '<source>:<id>' }),
    {
      description:
        'Comma list of <source>:<id> whose requests are trusted (github:login,slack:U123,linear:<user id>,jira:<account id>,confluence:<account id>)',
      example: 'github:octocat,slack:U0123ABCD',
    },
  ),
  REPOSITORY_ROUTES: documented(
    commaList({
      pattern: new RegExp(
        `^(slack|linear|jira|confluence):[^=\\s]+=${GITHUB_NAME}/${GITHUB_NAME}$`,
      ),
      shape: '<source>:<container>=owner/name',
    }),
    {
      description:
        'Comma list of <source>:<container>=owner/name: the repository a Slack channel, Linear team key, Jira project key or Confluence space key works on when the message names none (repo:owner/name)',
      example: 'slack:C0123ABCD=acme/widgets,linear:ENG=acme/api',
    },
  ),
  DEFAULT_REPOSITORY: documented(
    z
      .string()
      .regex(new RegExp(`^${GITHUB_NAME}/${GITHUB_NAME}$`), 'owner/name')
      .optional(),
    {
      description:
        'The repository Slack, Linear, Jira and Confluence requests work on when neither the message nor REPOSITORY_ROUTES names one',
      example: 'acme/widgets',
    },
  ),
  DELIVERY_RETENTION_HOURS: documented(z.coerce.number().int().min(72).default(168), {
    description:
      'How long a webhook delivery is kept for deduplication (at least 72: GitHub redelivers for 3 days); an hourly sweep deletes older ones',
  }),
});

type IngressEnv = z.output<typeof ingressEnvSchema>;

/** A webhook secret and, while a rotation reaches every sender, the one before it. */
export interface RotatingSecret {
  current?: string;
  previous?: string;
}

/** What ingress runs on, typed: webhook secrets, who and where it answers, its integrations. */
export interface IngressConfig {
  webhooks: {
    github: { secret: RotatingSecret };
    slack: { signingSecret: RotatingSecret; botUserId?: string };
    linear: { secret: RotatingSecret; botUserId?: string };
    jira: { sharedSecret: RotatingSecret; hmacSecret: RotatingSecret; secretHeader: string };
  };
  github: {
    /** The handle that addresses Caravel (also in Linear and Confluence), without the @. */
    botHandle: string;
    /** An issue labeled with this starts a run. */
    triggerLabel?: string;
    /** Owners and `owner/name` repositories Caravel answers (open when both are empty). */
    allowedOrgs: readonly string[];
    allowedRepos: readonly string[];
    /** `owner/name` or `owner/*` whose new pull requests get a review request; drafts too? */
    autoReviewRepos: readonly string[];
    autoReviewDrafts: boolean;
  };
  confluence: {
    appKey: string;
    /** Caravel's public base URL as the Connect app names it; unset, /connect answers 401. */
    baseUrl?: string;
    /** Atlassian's public keys for signed install callbacks. */
    connectKeysUrl: string;
    botAccountId?: string;
  };
  routing: {
    /** `<source>:<id>` whose requests are trusted. */
    trustedAuthors: readonly string[];
    /** `<source>:<container>=owner/name` entries, and the fallback repository. */
    repositoryRoutes: readonly string[];
    defaultRepository?: string;
  };
  /** How long a webhook delivery is kept for deduplication. */
  deliveryRetentionHours: number;
  /**
   * The keyring Connect tenants' shared secrets are sealed with (`CONNECT_SECRET_KEYS`). Never the
   * token keyring: whoever exploits the ingress must not open people's stored GitHub tokens.
   */
  connectSecretKeys?: string;
  /**
   * The tracker credentials of Jira and Confluence read-back, and nothing else: no GitHub
   * credential, no chat bot token. The ingress faces the internet and asks or answers nobody;
   * dispatch, which holds the App, decides who may have Caravel act and answers refusals.
   */
  integrations: IntegrationsConfig;
}

/** Only the values that are set, so an absent one stays absent. */
function defined<T extends Record<string, string | undefined>>(
  values: T,
): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: string;
  };
}

/** Maps ingress's parsed keys to its typed configuration. */
export function ingressConfigOf(env: IngressEnv): IngressConfig {
  return {
    webhooks: {
      github: {
        secret: defined({
          current: env.GITHUB_WEBHOOK_SECRET,
          previous: env.GITHUB_WEBHOOK_SECRET_PREVIOUS,
        }),
      },
      slack: {
        signingSecret: defined({
          current: env.SLACK_SIGNING_SECRET,
          previous: env.SLACK_SIGNING_SECRET_PREVIOUS,
        }),
        ...defined({ botUserId: env.SLACK_BOT_USER_ID }),
      },
      linear: {
        secret: defined({
          current: env.LINEAR_WEBHOOK_SECRET,
          previous: env.LINEAR_WEBHOOK_SECRET_PREVIOUS,
        }),
        ...defined({ botUserId: env.LINEAR_BOT_USER_ID }),
      },
      jira: {
        sharedSecret: defined({
          current: env.JIRA_SHARED_SECRET,
          previous: env.JIRA_SHARED_SECRET_PREVIOUS,
        }),
        hmacSecret: defined({
          current: env.JIRA_HMAC_SECRET,
          previous: env.JIRA_HMAC_SECRET_PREVIOUS,
        }),
        secretHeader: env.JIRA_SECRET_HEADER,
      },
    },
    github: {
      botHandle: env.GITHUB_BOT_HANDLE,
      ...defined({ triggerLabel: env.GITHUB_TRIGGER_LABEL }),
      allowedOrgs: env.ALLOWED_GITHUB_ORGS,
      allowedRepos: env.ALLOWED_GITHUB_REPOS,
      autoReviewRepos: env.AUTO_REVIEW_REPOS,
      autoReviewDrafts: env.AUTO_REVIEW_DRAFT_PRS,
    },
    confluence: {
      appKey: env.CONFLUENCE_APP_KEY,
      connectKeysUrl: env.CONNECT_KEYS_URL,
      ...defined({ baseUrl: env.CONFLUENCE_BASE_URL, botAccountId: env.CONFLUENCE_BOT_ACCOUNT_ID }),
    },
    routing: {
      trustedAuthors: env.TRUSTED_AUTHORS,
      repositoryRoutes: env.REPOSITORY_ROUTES,
      ...defined({ defaultRepository: env.DEFAULT_REPOSITORY }),
    },
    deliveryRetentionHours: env.DELIVERY_RETENTION_HOURS,
    ...defined({ connectSecretKeys: env.CONNECT_SECRET_KEYS }),
    // No GitHub credential, even from the embedded host, which hands it every service's keys.
    integrations: integrationsConfigOf({
      ...env,
      GITHUB_API_URL: NO_GITHUB_API,
      GITHUB_APP_ID: undefined,
      GITHUB_APP_PRIVATE_KEY: undefined,
      GITHUB_TOKEN: undefined,
    }),
  };
}

/**
 * Ingress's own keys, parsed and typed (the bare module's defaults, tests, benchmarks). A bad value
 * throws zod's error; a process loads its configuration with `loadConfig` for `CONFIG_INVALID`.
 */
export function ingressConfigFrom(env: Record<string, string | undefined>): IngressConfig {
  return ingressConfigOf(ingressEnvSchema.parse(env));
}

/** The distributed ingress: the common service keys and its own, typed at parse time. */
export const ingressConfigSchema = distributedServiceSchema(3001)
  .extend(ingressEnvSchema.shape)
  .transform((env) => ({ service: serviceConfigOf(env), ...ingressConfigOf(env) }));

/**
 * What to warn about at start when `/webhooks/jira` is on (`JIRA_SHARED_SECRET`) without the
 * service account its deliveries are read back with: every one of them would be refused.
 */
export function jiraSetupWarning(config: IngressConfig): string | undefined {
  if (!config.webhooks.jira.sharedSecret.current || jiraConfigured(config.integrations.jira)) {
    return undefined;
  }
  return `JIRA_SHARED_SECRET is set but ${JIRA_SERVICE_ACCOUNT_SETTINGS} are not: every /webhooks/jira delivery is refused (412) until the service account that reads its issue and comment back is configured`;
}

/** Injection token of the {@link IngressConfig}. */
export const INGRESS_CONFIG = Symbol('caravel.ingress-config');
