import type { EnvSource } from '@caravel/config';
import { AppError } from '@caravel/errors';
import { sandboxBrokerEnvSchema } from '@caravel/sandbox-broker';
import type { BuildEgressOptions } from '@caravel/swegen';
import { z } from 'zod';

/**
 * What a task's build steps reach: the agent sandboxes' own keys, parsed as the broker parses
 * them, so a mirror or an extra host configured once serves the agents, the builds of
 * `caravel swegen` and those of `caravel eval run` alike.
 */
const egressKeys = sandboxBrokerEnvSchema.pick({
  SANDBOX_EGRESS_ALLOWLIST: true,
  SANDBOX_EGRESS_MIRRORS: true,
}).shape;

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
  ...egressKeys,
});

export type SwegenEnv = z.infer<typeof swegenEnvSchema>;

/** Parses the environment; an invalid value names every bad key. */
export function parseSwegenEnv(env: EnvSource): SwegenEnv {
  const parsed = swegenEnvSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const keys = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new AppError('CONFIG_INVALID', `invalid environment: ${keys.join('; ')}`);
}

/** The egress of a task's build (see `openBuildEgress`): the allowlist and its mirrors. */
export function buildEgressOf(env: SwegenEnv): BuildEgressOptions {
  return { allowlist: env.SANDBOX_EGRESS_ALLOWLIST, upstreamOverrides: env.SANDBOX_EGRESS_MIRRORS };
}
