import type { ModelCredentials } from '@caravel/agent';
import { documented } from '@caravel/config';
import {
  channelSettingsSchema,
  githubAppSettingsSchema,
  githubTokenSettingsSchema,
  webSettingsSchema,
} from '@caravel/integrations';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const nonNegative = (fallback: number) => z.coerce.number().min(0).default(fallback);
const nonNegativeInt = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/**
 * What the agent runner needs beyond the common service keys. The same keys configure the
 * embedded host (`caravel start`, `caravel run`) and the distributed service.
 */
export const agentSettingsSchema = z.object({
  CARAVEL_MODEL: documented(z.string().min(1).optional(), {
    description:
      'Team default model, e.g. anthropic:claude-sonnet-4-5, openai:gpt-5, scripted:<file>',
  }),
  ANTHROPIC_API_KEY: documented(z.string().min(1).optional(), {
    description: 'Anthropic API key (required when an anthropic: model is used)',
    secret: true,
  }),
  OPENAI_API_KEY: documented(z.string().min(1).optional(), {
    description: 'OpenAI API key (required when an openai: model is used)',
    secret: true,
  }),
  OPENAI_COMPATIBLE_BASE_URL: documented(z.url().optional(), {
    description:
      'Base URL of an OpenAI-compatible endpoint (Ollama, vLLM) for openai-compatible: models',
  }),
  OPENAI_COMPATIBLE_API_KEY: documented(z.string().min(1).optional(), {
    description: 'API key for the OpenAI-compatible endpoint, if it wants one',
    secret: true,
  }),
  CARAVEL_FILE_ROOT: documented(z.string().min(1).default('.'), {
    description: 'Directory that relative scripted:/replay: model files are resolved against',
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

export type AgentSettings = z.output<typeof agentSettingsSchema>;

/** Injection token of the runner's {@link AgentSettings}. */
export const AGENT_SETTINGS = Symbol('caravel.agent-settings');

type ModelKeys = Pick<
  z.output<typeof agentSettingsSchema>,
  | 'ANTHROPIC_API_KEY'
  | 'OPENAI_API_KEY'
  | 'OPENAI_COMPATIBLE_BASE_URL'
  | 'OPENAI_COMPATIBLE_API_KEY'
>;

/** The provider credentials among the settings, as the model library takes them. */
export function modelCredentialsOf(settings: ModelKeys): ModelCredentials {
  return {
    ...(settings.ANTHROPIC_API_KEY ? { anthropicApiKey: settings.ANTHROPIC_API_KEY } : {}),
    ...(settings.OPENAI_API_KEY ? { openaiApiKey: settings.OPENAI_API_KEY } : {}),
    ...(settings.OPENAI_COMPATIBLE_BASE_URL
      ? { openaiCompatibleBaseUrl: settings.OPENAI_COMPATIBLE_BASE_URL }
      : {}),
    ...(settings.OPENAI_COMPATIBLE_API_KEY
      ? { openaiCompatibleApiKey: settings.OPENAI_COMPATIBLE_API_KEY }
      : {}),
  };
}
