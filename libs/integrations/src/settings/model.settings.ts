import { modelProblem, type ModelCredentials } from '@caravel/agent';
import { documented } from '@caravel/config';
import { z } from 'zod';

/**
 * The model keys: the team default model and the providers' credentials. Read by every process
 * that builds a model (the agent runner, the reviewer, the embedded host), so one key configures
 * them all.
 */
export const modelSettingsSchema = z.object({
  CARAVEL_MODEL: documented(z.string().min(1).optional(), {
    description:
      'Team default model (runs, and reviews unless REVIEWER_MODEL is set), e.g. anthropic:claude-sonnet-4-5, openai:gpt-5, scripted:<file>',
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
});

/** Parsed {@link modelSettingsSchema}. */
export type ModelSettings = z.output<typeof modelSettingsSchema>;

/** The provider credentials among the keys, as the model library takes them. */
export function modelCredentialsOf(
  env: Omit<ModelSettings, 'CARAVEL_MODEL' | 'CARAVEL_FILE_ROOT'>,
): ModelCredentials {
  return {
    ...(env.ANTHROPIC_API_KEY ? { anthropicApiKey: env.ANTHROPIC_API_KEY } : {}),
    ...(env.OPENAI_API_KEY ? { openaiApiKey: env.OPENAI_API_KEY } : {}),
    ...(env.OPENAI_COMPATIBLE_BASE_URL
      ? { openaiCompatibleBaseUrl: env.OPENAI_COMPATIBLE_BASE_URL }
      : {}),
    ...(env.OPENAI_COMPATIBLE_API_KEY
      ? { openaiCompatibleApiKey: env.OPENAI_COMPATIBLE_API_KEY }
      : {}),
  };
}

/**
 * A `superRefine` for a distributed schema: each of `keys` that names a model that cannot work
 * here (an unknown name, its provider's key unset, an unreadable script) is an invalid key,
 * reported at start with the other invalid keys rather than by the first run.
 */
export function checkModelKeys<K extends string>(keys: readonly K[]) {
  return (env: ModelSettings & Partial<Record<K, string>>, context: z.RefinementCtx): void => {
    for (const key of keys) {
      const spec = env[key];
      if (!spec) continue;
      const problem = modelProblem(spec, modelCredentialsOf(env), {
        fileRoot: env.CARAVEL_FILE_ROOT,
      });
      if (problem) context.addIssue({ code: 'custom', path: [key], message: problem.message });
    }
  };
}

/** The model a service runs on, and which key named it (for messages about that key). */
export interface ServiceModel<K extends string> {
  model?: string;
  modelKey?: K | 'CARAVEL_MODEL';
}

/**
 * The model of a service with its own model key (`REVIEWER_MODEL`, `ANALYZER_MODEL`): that key,
 * else the team default (`CARAVEL_MODEL`), else none.
 */
export function serviceModelOf<K extends string>(
  key: K,
  env: Pick<ModelSettings, 'CARAVEL_MODEL'> & Partial<Record<K, string>>,
): ServiceModel<K> {
  const own = env[key];
  if (own) return { model: own, modelKey: key };
  if (env.CARAVEL_MODEL) return { model: env.CARAVEL_MODEL, modelKey: 'CARAVEL_MODEL' };
  return {};
}

/**
 * Everything a service with its own model key builds its model from: the model and the key that
 * named it, the providers' credentials, and where relative model files resolve. The reviewer and
 * the analyzer read it the same way; only the key differs.
 */
export interface ServiceModelConfig<K extends string> extends ServiceModel<K> {
  credentials: ModelCredentials;
  /** What relative `scripted:`/`replay:` model files resolve against. */
  fileRoot: string;
}

/** {@link serviceModelOf}, with the credentials and the file root from the same keys. */
export function serviceModelConfigOf<K extends string>(
  key: K,
  env: ModelSettings & Partial<Record<K, string>>,
): ServiceModelConfig<K> {
  return {
    ...serviceModelOf(key, env),
    credentials: modelCredentialsOf(env),
    fileRoot: env.CARAVEL_FILE_ROOT,
  };
}
