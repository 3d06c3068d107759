import {
  commaList,
  distributedServiceSchema,
  documented,
  positiveInt,
  serviceConfigOf,
} from '@caravel/config';
import {
  accessSettingsSchema,
  channelSettingsSchema,
  githubAppSettingsSchema,
  githubTokenSettingsSchema,
  integrationsConfigOf,
  type IntegrationsConfig,
  type RepositoryAccessCheck,
} from '@caravel/integrations';
import { z } from 'zod';

/**
 * Dispatch's own environment keys (the embedded host reads them too): concurrency limits, the
 * reconcile sweep and its limits, and where dispatch's own replies (failures, queue positions)
 * go. GitHub replies go out as the GitHub App (`GITHUB_TOKEN` is a development fallback for when
 * no App is set); a source without credentials is skipped with one warning.
 */
export const dispatchEnvSchema = z.object({
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
  DISPATCH_CI_SETTLE_MS: documented(positiveInt(10 * 60_000), {
    description:
      'CI babysitting: how long the same green check set must hold before success is announced',
  }),
  DISPATCH_CI_MAX_FIX_RUNS: documented(positiveInt(10), {
    description: 'CI babysitting: fix runs per pull request at most, then one "limit reached"',
  }),
  DISPATCH_CI_MAX_FLAKY_RERUNS: documented(positiveInt(3), {
    description: 'CI babysitting: reruns on evidence of flakiness per head at most',
  }),
  DISPATCH_CI_SWEEP_INTERVAL_MS: documented(positiveInt(10 * 60_000), {
    description:
      'CI babysitting: how often watched pull requests are polled for merge conflicts and settled greens',
  }),
  DISPATCH_BUDGET_ADMINS: documented(
    commaList({ pattern: /^[a-z]+:\S+$/, shape: '<source>:<id>' }),
    {
      description:
        "Comma list of <source>:<id> who may give a run paused at its budget more, besides the thread's owner",
      example: 'slack:U0123ABCD,github:octocat',
    },
  ),
  GITHUB_BOT_HANDLE: documented(
    z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, 'a GitHub login, without the @')
      .default('caravel'),
    // Ingress's own description: the embedded host lists the key once.
    { description: 'Handle that addresses Caravel in GitHub (and Linear) comments, without the @' },
  ),
  ...channelSettingsSchema.pick({
    SLACK_BOT_TOKEN: true,
    SLACK_API_URL: true,
    LINEAR_API_KEY: true,
    LINEAR_API_URL: true,
    JIRA_BASE_URL: true,
    JIRA_EMAIL: true,
    JIRA_API_TOKEN: true,
    CONFLUENCE_EMAIL: true,
    CONFLUENCE_API_TOKEN: true,
  }).shape,
  // No GITHUB_HOST: dispatch only comments, it decides nothing about where repositories live.
  ...githubAppSettingsSchema.omit({ GITHUB_HOST: true }).shape,
  ...githubTokenSettingsSchema.shape,
  ...accessSettingsSchema.shape,
});

/** What dispatch runs on, typed: its limits and sweep, and the reply channels' credentials. */
export interface DispatchConfig {
  dispatch: {
    /** Runs active at once on the whole platform; more wait in the fair-share queue. */
    maxActiveRuns: number;
    /** Runs active at once on one repository. */
    maxActiveRunsPerRepository: number;
    /** How often the sweep reconciles stuck runs, fires due wakeups and admits queued runs. */
    sweepIntervalMs: number;
    /** An admitted run no runner started within this long is failed. */
    pendingLimitMs: number;
    /** A running run with no step and no live thread lease for this long is failed. */
    heartbeatLimitMs: number;
  };
  /** CI babysitting of the agent's pull requests (`ci-watch/`). */
  ciWatch: {
    /** How long the same green check set must hold before success is announced. */
    settleMs: number;
    /** Fix runs per pull request at most; then one "limit reached" status. */
    maxFixRunsPerPullRequest: number;
    /** Reruns on evidence of flakiness per head at most. */
    maxFlakyRerunsPerHead: number;
    /** How often watched pull requests are polled (merge conflicts, settled greens). */
    sweepIntervalMs: number;
    /** The handle `@<handle> autofix on|off` addresses in a PR comment. */
    botHandle: string;
  };
  /** Who may grant a run paused at its budget more, besides the thread's owner (`source:id`). */
  budgets: { admins: readonly string[] };
  /** Who may have Caravel act, decided at the trigger intake (`TriggerAccessService`). */
  access: {
    /** On public repositories only the owner's members (and bots) may address Caravel. */
    publicRepoOrgGate: boolean;
    /** How long the gate keeps GitHub's membership answers (yes and no); 0: not kept. */
    publicRepoGateCacheMs: number;
    /** Whether a repository a person chose must be one the trigger's author can see. */
    repositoryAccessCheck: RepositoryAccessCheck;
  };
  /** Where dispatch's own replies go, and the GitHub App the intake asks as. */
  integrations: IntegrationsConfig;
}

/** Maps dispatch's parsed keys to its typed configuration. */
export function dispatchConfigOf(env: z.output<typeof dispatchEnvSchema>): DispatchConfig {
  return {
    dispatch: {
      maxActiveRuns: env.DISPATCH_MAX_ACTIVE_RUNS,
      maxActiveRunsPerRepository: env.DISPATCH_MAX_ACTIVE_RUNS_PER_REPO,
      sweepIntervalMs: env.DISPATCH_SWEEP_INTERVAL_MS,
      pendingLimitMs: env.DISPATCH_PENDING_LIMIT_MS,
      heartbeatLimitMs: env.DISPATCH_HEARTBEAT_LIMIT_MS,
    },
    ciWatch: {
      settleMs: env.DISPATCH_CI_SETTLE_MS,
      maxFixRunsPerPullRequest: env.DISPATCH_CI_MAX_FIX_RUNS,
      maxFlakyRerunsPerHead: env.DISPATCH_CI_MAX_FLAKY_RERUNS,
      sweepIntervalMs: env.DISPATCH_CI_SWEEP_INTERVAL_MS,
      botHandle: env.GITHUB_BOT_HANDLE,
    },
    budgets: { admins: env.DISPATCH_BUDGET_ADMINS },
    access: {
      publicRepoOrgGate: env.PUBLIC_REPO_ORG_GATE,
      publicRepoGateCacheMs: env.PUBLIC_REPO_GATE_CACHE_SECONDS * 1000,
      repositoryAccessCheck: env.REPOSITORY_ACCESS_CHECK,
    },
    integrations: integrationsConfigOf(env),
  };
}

/** The distributed dispatch: the common service keys and its own, typed at parse time. */
export const dispatchConfigSchema = distributedServiceSchema(3002)
  .extend(dispatchEnvSchema.shape)
  .transform((env) => ({ service: serviceConfigOf(env), ...dispatchConfigOf(env) }));

/** Injection token of the {@link DispatchConfig}. */
export const DISPATCH_CONFIG = Symbol('caravel.dispatch-config');
