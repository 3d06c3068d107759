import { z } from 'zod';
import { AppError } from '@caravel/errors';
import type { ConfigSchema } from './config-schema.js';

export type EnvSource = Readonly<Record<string, string | undefined>>;

/** One line per invalid key, e.g. `NATS_URL: Invalid URL (got "x")`. */
export function describeConfigIssues(error: z.ZodError, env: EnvSource): string[] {
  return error.issues.map((issue) => {
    const key = issue.path.join('.') || '(root)';
    const value = env[key];
    if (value === undefined) return `${key}: required, but unset`;
    return `${key}: ${issue.message} (got ${JSON.stringify(value)})`;
  });
}

/**
 * Parses a service's configuration from the environment (and maps it to its typed shape, when
 * the schema has a transform). Throws one `CONFIG_INVALID` error whose details list every invalid
 * key by its environment name, so the operator fixes them all in one go.
 */
export function loadConfig<S extends ConfigSchema>(
  service: string,
  schema: S,
  env: EnvSource,
): z.output<S> {
  // A union of schema kinds loses the output type through safeParse; z.output<S> is what it parses to.
  const result = (schema as z.ZodType<z.output<S>>).safeParse(env);
  if (result.success) return result.data;
  const problems = describeConfigIssues(result.error, env);
  throw new AppError(
    'CONFIG_INVALID',
    `invalid configuration for ${service}:\n  ${problems.join('\n  ')}`,
    {
      details: { service, problems },
    },
  );
}
