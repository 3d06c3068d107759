import { documented } from '@caravel/config';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const secret = (description: string) =>
  documented(z.string().min(1).optional(), { description, secret: true });

/** Concurrency limits, the reconcile sweep and its limits. */
export const dispatchSettingsSchema = z.object({
  DISPATCH_MAX_ACTIVE_RUNS: documented(positiveInt(8), {
    description: 'Runs active at once on the whole platform; more wait in the fair-share queue',
  }),
  DISPATCH_MAX_ACTIVE_RUNS_PER_REPO: documented(positiveInt(4), {
    description: 'Runs active at once on one repository; more wait in the fair-share queue',
  }),
  DISPATCH_SWEEP_INTERVAL_MS: documented(positiveInt(30_000), {
    description:
      'How often dispatch reconciles stuck runs, fires due wakeups and admits queued runs',
  }),
  DISPATCH_PENDING_LIMIT_MS: documented(positiveInt(30 * 60_000), {
    description: 'An admitted run no runner started within this long is failed (with a reply)',
  }),
  DISPATCH_HEARTBEAT_LIMIT_MS: documented(positiveInt(10 * 60_000), {
    description:
      'A running run with no step and no live thread lease for this long is failed (with a reply)',
  }),
});

/**
 * Where dispatch's own replies (failures, queue positions) go. The same keys configure the
 * runner's channels; a source without credentials is skipped with one warning.
 */
export const replySettingsSchema = z.object({
  SLACK_BOT_TOKEN: secret('Slack bot token (xoxb-...): replies and tools for Slack threads'),
  SLACK_API_URL: documented(z.url().optional(), {
    description: 'Slack Web API root (default https://slack.com/api/)',
  }),
  LINEAR_API_KEY: secret('Linear API key: replies and tools for Linear issues'),
  LINEAR_API_URL: documented(z.url().optional(), {
    description: 'Linear GraphQL endpoint (default https://api.linear.app/graphql)',
  }),
  JIRA_BASE_URL: documented(z.url().optional(), {
    description: 'Jira Cloud site, e.g. https://acme.atlassian.net',
  }),
  JIRA_EMAIL: documented(z.string().min(1).optional(), {
    description: 'Jira service account email (Basic auth with JIRA_API_TOKEN)',
  }),
  JIRA_API_TOKEN: secret('Jira service account API token'),
  GITHUB_TOKEN: secret('GitHub token dispatch comments with (failure replies, queue positions)'),
  GITHUB_API_URL: documented(z.url().default('https://api.github.com'), {
    description: 'GitHub REST API root (GHES: https://<host>/api/v3)',
  }),
});

/** Everything dispatch reads beyond the common service keys (embedded host too). */
export const dispatchServiceSettingsSchema = dispatchSettingsSchema.extend(
  replySettingsSchema.shape,
);

export type DispatchSettings = z.output<typeof dispatchServiceSettingsSchema>;

/** Injection token of the {@link DispatchSettings}. */
export const DISPATCH_SETTINGS = Symbol('caravel.dispatch-settings');
