import type { EnvSource } from '@caravel/config';
import { AppError } from '@caravel/errors';
import { z } from 'zod';

/** The environment `caravel swegen` reads (handed over by main.ts, parsed once). */
export const swegenEnvSchema = z.object({
  CARAVEL_MODEL: z.string().min(1).optional(),
  GITHUB_TOKEN: z.string().min(1).optional(),
  /** The publish (write) token; falls back to GITHUB_TOKEN. */
  GIT_TOKEN: z.string().min(1).optional(),
  GH_TOKEN: z.string().min(1).optional(),
  GITHUB_API_URL: z.string().url().optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_COMPATIBLE_BASE_URL: z.string().url().optional(),
  OPENAI_COMPATIBLE_API_KEY: z.string().min(1).optional(),
  PATH: z.string().optional(),
});

export type SwegenEnv = z.infer<typeof swegenEnvSchema>;

/** Parses the environment; an invalid value names every bad key. */
export function parseSwegenEnv(env: EnvSource): SwegenEnv {
  const parsed = swegenEnvSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const keys = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new AppError('CONFIG_INVALID', `invalid environment: ${keys.join('; ')}`);
}
