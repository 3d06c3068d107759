import { documented } from '@caravel/config';
import { channelSettingsSchema } from '@caravel/integrations';
import { z } from 'zod';

const optionalSecret = (description: string) =>
  documented(z.string().min(1).optional(), { description, secret: true });

/**
 * What ingress needs beyond the common service keys. The same keys configure the embedded host
 * (`caravel start`) and the distributed service. An unset secret makes its route answer 401.
 */
export const ingressSettingsSchema = z.object({
  GITHUB_WEBHOOK_SECRET: optionalSecret(
    'Secret of the GitHub webhook (X-Hub-Signature-256); /webhooks/github answers 401 while unset',
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
  SLACK_SIGNING_SECRET: optionalSecret(
    'Slack app signing secret (v0 signatures); /webhooks/slack answers 401 while unset',
  ),
  SLACK_BOT_USER_ID: documented(z.string().min(1).optional(), {
    description: "Caravel's Slack bot user id (U...), to spot mentions and drop its own messages",
  }),
  LINEAR_WEBHOOK_SECRET: optionalSecret(
    'Linear webhook signing secret (Linear-Signature); /webhooks/linear answers 401 while unset',
  ),
  LINEAR_BOT_USER_ID: documented(z.string().min(1).optional(), {
    description: "Caravel's Linear user id: mentions of it and assignments to it start runs",
  }),
  JIRA_SHARED_SECRET: optionalSecret(
    'Shared secret the Jira Automation rule sends in JIRA_SECRET_HEADER; /webhooks/jira answers 401 while unset',
  ),
  JIRA_SECRET_HEADER: documented(z.string().min(1).default('x-caravel-secret'), {
    description: 'Header that carries JIRA_SHARED_SECRET',
  }),
  JIRA_HMAC_SECRET: optionalSecret(
    'When set, Jira requests must also carry X-Caravel-Timestamp and an HMAC of timestamp.body in X-Caravel-Signature',
  ),
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
  CONFLUENCE_EMAIL: documented(z.string().min(1).optional(), {
    description: 'Confluence service account email: comments are re-fetched as this account',
  }),
  CONFLUENCE_API_TOKEN: optionalSecret('Confluence service account API token'),
  CONFLUENCE_BOT_ACCOUNT_ID: documented(z.string().min(1).optional(), {
    description: "The service account's Atlassian account id: mentions of it start runs",
  }),
  CARAVEL_TOKEN_KEYS: channelSettingsSchema.shape.CARAVEL_TOKEN_KEYS,
  TRUSTED_AUTHORS: documented(
    z
      .string()
      .default('')
      .transform((value, context) => {
        const entries = value
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== '');
        for (const entry of entries) {
          if (!/^(github|slack|linear|jira|confluence):\S+$/.test(entry)) {
            context.addIssue({ code: 'custom', message: `"${entry}" is not <source>:<id>` });
          }
        }
        return entries;
      }),
    {
      description:
        'Comma list of <source>:<id> whose requests are trusted (github:login,slack:U123,linear:<user id>,jira:<account id>,confluence:<account id>)',
      example: 'github:octocat,slack:U0123ABCD',
    },
  ),
});

export type IngressSettings = z.output<typeof ingressSettingsSchema>;

/** Injection token of the ingress {@link IngressSettings}. */
export const INGRESS_SETTINGS = Symbol('caravel.ingress-settings');
