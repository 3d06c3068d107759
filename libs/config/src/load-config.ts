import { z } from 'zod';
import { AppError } from '@caravel/errors';

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
 * Parses a service's configuration from the environment. Throws one `CONFIG_INVALID` error whose
 * details list every invalid key, so the operator fixes them all in one go.
 */
export function loadConfig<S extends z.ZodObject>(
  service: string,
  schema: S,
  env: EnvSource,
): z.output<S> {
  const result = schema.safeParse(env);
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
