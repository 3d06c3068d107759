import { documented, flag } from '@caravel/config';
import {
  channelSettingsSchema,
  githubAppSettingsSchema,
  JIRA_SERVICE_ACCOUNT_SETTINGS,
  jiraConfigured,
} from '@caravel/integrations';
import { z } from 'zod';

const optionalSecret = (description: string) =>
  documented(z.string().min(1).optional(), { description, secret: true });

/** A comma list whose every entry must match `entry`, trimmed, empties dropped. */
const commaList = (entry: RegExp, shape: string) =>
  z
    .string()
    .default('')
    .transform((value, context) => {
      const entries = value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
      for (const item of entries) {
        if (!entry.test(item))
          context.addIssue({ code: 'custom', message: `"${item}" is not ${shape}` });
      }
      return entries;
    });

const GITHUB_NAME = '[A-Za-z0-9_.-]+';

/**
 * What ingress needs beyond the common service keys. The same keys configure the embedded host
 * (`caravel start`) and the distributed service. An unset secret makes its route answer 401.
 */
export const ingressSettingsSchema = z.object({
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
  ALLOWED_GITHUB_ORGS: documented(commaList(new RegExp(`^${GITHUB_NAME}$`), 'an owner'), {
    description:
      'Comma list of GitHub owners whose repositories Caravel answers (open when this and ALLOWED_GITHUB_REPOS are empty)',
    example: 'acme,acme-labs',
  }),
  ALLOWED_GITHUB_REPOS: documented(
    commaList(new RegExp(`^${GITHUB_NAME}/${GITHUB_NAME}$`), 'owner/name'),
    {
      description:
        'Comma list of owner/name repositories Caravel answers, besides ALLOWED_GITHUB_ORGS',
      example: 'octocat/hello-world',
    },
  ),
  PUBLIC_REPO_ORG_GATE: documented(flag(true), {
    description:
      'On public repositories only members of the owning organization (and bots) may address Caravel; needs the App for the membership check',
  }),
  AUTO_REVIEW_REPOS: documented(
    commaList(new RegExp(`^${GITHUB_NAME}/(${GITHUB_NAME}|\\*)$`), 'owner/name or owner/*'),
    {
      description:
        'Comma list of owner/name (or owner/*) whose opened and ready-for-review pull requests get a review request',
      example: 'acme/*',
    },
  ),
  AUTO_REVIEW_DRAFT_PRS: documented(flag(false), {
    description: 'Whether draft pull requests on AUTO_REVIEW_REPOS get a review request too',
  }),
  GITHUB_APP_ID: githubAppSettingsSchema.shape.GITHUB_APP_ID,
  GITHUB_APP_PRIVATE_KEY: githubAppSettingsSchema.shape.GITHUB_APP_PRIVATE_KEY,
  GITHUB_API_URL: githubAppSettingsSchema.shape.GITHUB_API_URL,
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
  CARAVEL_TOKEN_KEYS: channelSettingsSchema.shape.CARAVEL_TOKEN_KEYS,
  TRUSTED_AUTHORS: documented(
    commaList(/^(github|slack|linear|jira|confluence):\S+$/, '<source>:<id>'),
    {
      description:
        'Comma list of <source>:<id> whose requests are trusted (github:login,slack:U123,linear:<user id>,jira:<account id>,confluence:<account id>)',
      example: 'github:octocat,slack:U0123ABCD',
    },
  ),
  REPOSITORY_ROUTES: documented(
    commaList(
      new RegExp(`^(slack|linear|jira|confluence):[^=\\s]+=${GITHUB_NAME}/${GITHUB_NAME}$`),
      '<source>:<container>=owner/name',
    ),
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

export type IngressSettings = z.output<typeof ingressSettingsSchema>;

/**
 * What to warn about at start when `/webhooks/jira` is on (`JIRA_SHARED_SECRET`) without the
 * service account its deliveries are read back with: every one of them would be refused.
 */
export function jiraSetupWarning(settings: IngressSettings): string | undefined {
  if (!settings.JIRA_SHARED_SECRET || jiraConfigured(settings)) return undefined;
  return `JIRA_SHARED_SECRET is set but ${JIRA_SERVICE_ACCOUNT_SETTINGS} are not: every /webhooks/jira delivery is refused (412) until the service account that reads its issue and comment back is configured`;
}

/** Injection token of the ingress {@link IngressSettings}. */
export const INGRESS_SETTINGS = Symbol('caravel.ingress-settings');
