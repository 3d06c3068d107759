// Checks the deployment files (docker-compose.yml, the Dockerfile, the Helm chart) against the
// services' config schemas. Each check returns a list of problems, empty when the file is right,
// so the specs can also show that a broken copy of a file is caught. Used by the specs only.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';

/** The repository root, four levels above this file (tools/checks/src/deployment). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

export function readRepoFile(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}

export interface ServiceSpec {
  name: string;
  schema: z.ZodObject;
}

export type Env = Record<string, string>;

export function schemaKeys(schema: z.ZodObject): string[] {
  return Object.keys(schema.shape);
}

/** Keys the service cannot start without: their schema rejects `undefined`. */
export function requiredKeys(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([key]) => key);
}

/** The port a service listens on when PORT is unset. */
export function defaultPort(schema: z.ZodObject): number {
  const field = schema.shape['PORT'] as z.ZodType | undefined;
  const parsed = field?.safeParse(undefined);
  if (!parsed?.success || typeof parsed.data !== 'number')
    throw new Error('schema has no default PORT');
  return parsed.data;
}

/** Compose's `${VAR:-default}` / `${VAR-default}` become the default; a bare `${VAR}` becomes ''. */
export function withComposeDefaults(value: string): string {
  return value.replace(
    /\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*))?\}/g,
    (_match, fallback?: string) => fallback ?? '',
  );
}

/**
 * Problems with the environment a deployment gives one service: a required key missing, a key
 * the schema does not know (a typo the service would silently ignore), or a value it rejects.
 */
export function envProblems(where: string, service: ServiceSpec, env: Env): string[] {
  const known = new Set(schemaKeys(service.schema));
  const problems = requiredKeys(service.schema)
    .filter((key) => !(key in env))
    .map((key) => `${where}: ${service.name} does not set required ${key}`);
  for (const key of Object.keys(env)) {
    if (!known.has(key))
      problems.push(`${where}: ${service.name} sets ${key}, which its config schema does not have`);
  }
  const parsed = service.schema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${where}: ${service.name} ${issue.path.join('.')}: ${issue.message}`);
    }
  }
  return problems;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A YAML scalar as compose passes it to the container (numbers and booleans as text). */
function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** A compose `environment` (map or `KEY=value` list) as a map, with `${…}` defaults applied. */
export function composeEnv(environment: unknown): Env {
  const env: Env = {};
  if (Array.isArray(environment)) {
    for (const entry of environment) {
      const [key = '', ...rest] = String(entry).split('=');
      env[key] = withComposeDefaults(rest.join('='));
    }
  } else if (isRecord(environment)) {
    for (const [key, value] of Object.entries(environment)) {
      env[key] = withComposeDefaults(scalarText(value));
    }
  }
  return env;
}
