import { documented } from '@caravel/config';
import {
  channelSettingsSchema,
  githubAppSettingsSchema,
  githubTokenSettingsSchema,
} from '@caravel/integrations';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

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
 * runner's channels: GitHub replies go out as the GitHub App (`GITHUB_TOKEN` is a development
 * fallback for when no App is set); a source without credentials is skipped with one warning.
 */
export const replySettingsSchema = channelSettingsSchema
  .pick({
    SLACK_BOT_TOKEN: true,
    SLACK_API_URL: true,
    LINEAR_API_KEY: true,
    LINEAR_API_URL: true,
    JIRA_BASE_URL: true,
    JIRA_EMAIL: true,
    JIRA_API_TOKEN: true,
    CONFLUENCE_EMAIL: true,
    CONFLUENCE_API_TOKEN: true,
  })
  .extend({
    // No GITHUB_HOST: dispatch only comments, it decides nothing about where repositories live.
    ...githubAppSettingsSchema.omit({ GITHUB_HOST: true }).shape,
    ...githubTokenSettingsSchema.shape,
  });

/** Everything dispatch reads beyond the common service keys (embedded host too). */
export const dispatchServiceSettingsSchema = dispatchSettingsSchema.extend(
  replySettingsSchema.shape,
);

export type DispatchSettings = z.output<typeof dispatchServiceSettingsSchema>;

/** Injection token of the {@link DispatchSettings}. */
export const DISPATCH_SETTINGS = Symbol('caravel.dispatch-settings');
