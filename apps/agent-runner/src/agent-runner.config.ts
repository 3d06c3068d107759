import type { ModelCredentials } from '@caravel/agent';
import {
  distributedServiceSchema,
  documented,
  nonNegative,
  nonNegativeInt,
  positiveInt,
  serviceConfigOf,
  splitList,
} from '@caravel/config';
import {
  channelSettingsSchema,
  checkModelKeys,
  githubAppSettingsSchema,
  githubTokenSettingsSchema,
  integrationsConfigOf,
  modelCredentialsOf,
  modelSettingsSchema,
  webPortsConfigOf,
  webSettingsSchema,
  type IntegrationsConfig,
  type WebPortsConfig,
} from '@caravel/integrations';
import { z } from 'zod';

/**
 * The agent runner's own environment keys, beyond the common service keys. The same keys
 * configure the embedded host (`caravel start`, `caravel run`) and the distributed service.
 */
export const agentRunnerEnvSchema = z.object({
  ...modelSettingsSchema.shape,
  CARAVEL_FALLBACK_MODEL: documented(z.string().min(1).optional(), {
    description:
      'Team fallback model, tried once on a provider error after the retries (a thread may name its own); unset: none',
  }),
  CARAVEL_SUBAGENT_MODEL: documented(z.string().min(1).optional(), {
    description:
      "Team subagent model: what the task tool's subagents run on; unset: the run's own model",
  }),
  RUN_SUBAGENT_SHARE: documented(z.coerce.number().gt(0).max(1).default(0.5), {
    description:
      "Share of the run's budget and model calls one subagent may use (its spending counts against the run's)",
  }),
  RUN_MAX_MODEL_CALLS: documented(positiveInt(60), { description: 'Model calls one run may make' }),
  RUN_MODEL_TIMEOUT_MS: documented(positiveInt(180_000), {
    description: 'Longest single model call, in milliseconds',
  }),
  RUN_COMMAND_TIMEOUT_MS: documented(positiveInt(120_000), {
    description: 'Longest single shell command in a sandbox, in milliseconds',
  }),
  RUN_MODEL_RETRIES: documented(nonNegativeInt(3), {
    description: 'Retries of a model call that failed with 429/5xx/timeout (retry-after honoured)',
  }),
  RUN_REVIEW_SAMPLES: documented(positiveInt(5), {
    description: 'Reviews per attempt in retry-and-select runs (their mean is its score)',
  }),
  RUN_BUDGET_USD: documented(nonNegative(3), {
    description: 'Dollars one run may spend on its model, checked before each call (0: no limit)',
  }),
  RUN_MAX_WALL_TIME_MS: documented(nonNegativeInt(7_200_000), {
    description: 'Longest a run may take, in milliseconds (0: no limit)',
  }),
  RUN_MAX_COMMAND_SECONDS: documented(nonNegativeInt(1800), {
    description: 'Seconds of shell commands one run may use in total (0: no limit)',
  }),
  RUN_MAX_CONSECUTIVE_TIMEOUTS: documented(nonNegativeInt(3), {
    description: 'Commands in a row that may time out before the run stops (0: no limit)',
  }),
  RUN_STUCK_THRESHOLD: documented(nonNegativeInt(4), {
    description: 'Identical action + observation pairs in a row that end a run as stuck (0: off)',
  }),
  RUN_KEEP_OBSERVATIONS: documented(nonNegativeInt(0), {
    description:
      "Tool outputs the model sees in full, newest first; older ones become a one-line note (SWE-agent's last_n_observations; 0: all)",
  }),
  RUN_OFFLOAD_OUTPUT_CHARS: documented(nonNegativeInt(25_000), {
    description:
      'A tool output longer than this many characters is written to a file in the sandbox (.git/caravel-outputs/<run>/) and the model reads its path, size and a preview (0: off)',
  }),
  RUN_MAX_REQUERIES: documented(positiveInt(3), {
    description: 'Unusable model answers in one step before the run ends with exit_format',
  }),
  RUN_INTERRUPT_POLL_MS: documented(positiveInt(15_000), {
    description:
      'How often a run looks for an interrupting message by itself (dispatch notifies it at once; this is the safety net)',
  }),
  RUN_INITIAL_MODE: documented(z.enum(['edit', 'plan']).default('edit'), {
    description:
      'Mode every run starts in: edit, or plan (no file changes, commits or PRs until the owner approves a plan)',
  }),
  RUN_EXCLUDED_TOOLS: documented(z.string().default(''), {
    description: 'Comma-separated tool names the agent is never offered (default: none)',
  }),
  RUN_ALWAYS_CREATE_PRS: documented(
    z
      .enum(['true', 'false'])
      .default('false')
      .transform((flag) => flag === 'true'),
    {
      description:
        'Always create PRs: every run that changed files ends by opening or updating one',
    },
  ),
  ...githubAppSettingsSchema.shape,
  ...githubTokenSettingsSchema.shape,
  ...channelSettingsSchema.shape,
  ...webSettingsSchema.shape,
});

type AgentRunnerEnv = z.output<typeof agentRunnerEnvSchema>;

/** What the runner's agents are built with, typed: models, run limits, integrations, web. */
export interface AgentRunnerConfig {
  models: {
    /** The team default model (`anthropic:…`, `scripted:<file>`); a thread may name its own. */
    teamDefault?: string;
    /** The team fallback model, tried on a provider error after the retries; a thread may name its own. */
    teamFallback?: string;
    /** What the `task` tool's subagents run on (default: the run's own model). */
    teamSubagent?: string;
    credentials: ModelCredentials;
    /** What relative `scripted:`/`replay:` model files resolve against. */
    fileRoot: string;
    /** Longest single model call. */
    timeoutMs: number;
    /** Retries of a call that failed with 429/5xx/timeout. */
    retries: number;
  };
  run: {
    maxModelCalls: number;
    /** Longest single shell command in a sandbox. */
    commandTimeoutMs: number;
    /** Reviews per attempt in retry-and-select runs. */
    reviewSamples: number;
    /** Share (0 to 1] of the run's budget and model calls one subagent may use. */
    subagentShare: number;
    /** Dollars one run may spend on its model (0: no limit). */
    budgetUsd: number;
    maxWallTimeMs: number;
    maxCommandSeconds: number;
    maxConsecutiveTimeouts: number;
    /** Identical action + observation pairs in a row that end a run as stuck (0: off). */
    stuckThreshold: number;
    /** Unusable answers in one step before `exit_format`. */
    maxRequeries: number;
    /** Tool outputs sent in full, newest first (SWE-agent's `last_n_observations`; 0: all). */
    keepObservations: number;
    /** Tool outputs longer than this go to a file in the sandbox (0: off). */
    offloadOutputChars: number;
    /** The safety-net poll for an interrupting message. */
    interruptPollMs: number;
    initialMode: 'edit' | 'plan';
    /** Tool names the agent is never offered. */
    excludedTools: readonly string[];
    /** Every run that changed files ends by opening or updating a pull request. */
    alwaysCreatePrs: boolean;
  };
  /** Replies, code hosts, trackers and the wiki, as the adapters take them. */
  integrations: IntegrationsConfig;
  /** The keyring people's tokens are sealed with at rest; unset, no token vault. */
  tokenKeys?: string;
  /** The web tools (`http_request`, `fetch_url`, `web_search`). */
  web: WebPortsConfig;
}

/** Maps the runner's parsed keys to its typed configuration. */
export function agentRunnerConfigOf(env: AgentRunnerEnv): AgentRunnerConfig {
  return {
    models: {
      ...(env.CARAVEL_MODEL ? { teamDefault: env.CARAVEL_MODEL } : {}),
      ...(env.CARAVEL_FALLBACK_MODEL ? { teamFallback: env.CARAVEL_FALLBACK_MODEL } : {}),
      ...(env.CARAVEL_SUBAGENT_MODEL ? { teamSubagent: env.CARAVEL_SUBAGENT_MODEL } : {}),
      credentials: modelCredentialsOf(env),
      fileRoot: env.CARAVEL_FILE_ROOT,
      timeoutMs: env.RUN_MODEL_TIMEOUT_MS,
      retries: env.RUN_MODEL_RETRIES,
    },
    run: {
      maxModelCalls: env.RUN_MAX_MODEL_CALLS,
      commandTimeoutMs: env.RUN_COMMAND_TIMEOUT_MS,
      reviewSamples: env.RUN_REVIEW_SAMPLES,
      subagentShare: env.RUN_SUBAGENT_SHARE,
      budgetUsd: env.RUN_BUDGET_USD,
      maxWallTimeMs: env.RUN_MAX_WALL_TIME_MS,
      maxCommandSeconds: env.RUN_MAX_COMMAND_SECONDS,
      maxConsecutiveTimeouts: env.RUN_MAX_CONSECUTIVE_TIMEOUTS,
      stuckThreshold: env.RUN_STUCK_THRESHOLD,
      maxRequeries: env.RUN_MAX_REQUERIES,
      keepObservations: env.RUN_KEEP_OBSERVATIONS,
      offloadOutputChars: env.RUN_OFFLOAD_OUTPUT_CHARS,
      interruptPollMs: env.RUN_INTERRUPT_POLL_MS,
      initialMode: env.RUN_INITIAL_MODE,
      excludedTools: splitList(env.RUN_EXCLUDED_TOOLS),
      alwaysCreatePrs: env.RUN_ALWAYS_CREATE_PRS,
    },
    integrations: integrationsConfigOf(env),
    ...(env.CARAVEL_TOKEN_KEYS ? { tokenKeys: env.CARAVEL_TOKEN_KEYS } : {}),
    web: webPortsConfigOf(env),
  };
}

/**
 * The distributed agent runner: the common service keys and its own, typed at parse time. A
 * team default (fallback, subagent) model that cannot work here (an unknown name, its provider's
 * key unset, an unreadable script) is an invalid `CARAVEL_MODEL` (`CARAVEL_FALLBACK_MODEL`,
 * `CARAVEL_SUBAGENT_MODEL`), reported
 * at start with the other invalid keys rather than by the first run.
 */
export const agentRunnerConfigSchema = distributedServiceSchema(3003)
  .extend(agentRunnerEnvSchema.shape)
  .superRefine(
    checkModelKeys(['CARAVEL_MODEL', 'CARAVEL_FALLBACK_MODEL', 'CARAVEL_SUBAGENT_MODEL']),
  )
  .transform((env) => ({ service: serviceConfigOf(env), ...agentRunnerConfigOf(env) }));

/**
 * The runner's own keys, parsed and typed (tests). A bad value throws zod's error; a process
 * loads its configuration with `loadConfig` for `CONFIG_INVALID`.
 */
export function agentRunnerConfigFrom(env: Record<string, string | undefined>): AgentRunnerConfig {
  return agentRunnerConfigOf(agentRunnerEnvSchema.parse(env));
}

/** Injection token of the {@link AgentRunnerConfig}. */
export const AGENT_RUNNER_CONFIG = Symbol('caravel.agent-runner-config');
