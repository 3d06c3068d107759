// What `docker compose -f docker-compose.yml -f infra/docker/docker-compose.e2e.yml` makes of the
// two files, without the docker CLI: the override's `${VAR:?…}` interpolated from the variables
// the compose e2e sets, and merged onto the base by the Compose rules it relies on (maps merged
// key by key, sequences appended, `!override` replacing and `!reset` clearing). Used by the specs.
import { parse, type Tags } from 'yaml';
import { composeEnv, isRecord, readRepoFile, type Env } from './deployment-checks.js';

export const E2E_OVERRIDE = 'infra/docker/docker-compose.e2e.yml';

export type ComposeService = Record<string, unknown>;
export type Compose = { services: Record<string, ComposeService> };

/** `!override [...]`: the list replaces the base file's. */
class Override {
  constructor(readonly value: unknown) {}
}
/** `!reset []`: the base file's value is dropped. */
class Reset {}

const COMPOSE_TAGS: Tags = [
  { tag: '!override', collection: 'seq', resolve: (seq) => new Override(seq.toJSON()) },
  { tag: '!reset', collection: 'seq', resolve: () => new Reset() },
];

/** A compose file as Compose reads it: YAML 1.1 merge keys, and its merge tags. */
export function parseCompose(text: string): Compose {
  return parse(text, { merge: true, customTags: COMPOSE_TAGS }) as Compose;
}

/** The `${NAME…}` references of a compose file, each with whether it must be set (`:?`). */
export function variablesOf(text: string): { name: string; required: boolean }[] {
  return [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[?-])?[^}]*\}/g)].map((found) => ({
    name: found[1] ?? '',
    required: (found[2] ?? '').endsWith('?'),
  }));
}

/** Compose's interpolation of one value: a required variable that is unset is an error. */
function interpolate(value: string, variables: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[?-])([^}]*))?\}/g,
    (_match, name: string, operator?: string, text?: string) => {
      const set = variables[name];
      if (set !== undefined && (set !== '' || !operator?.startsWith(':'))) return set;
      if (operator?.endsWith('?')) throw new Error(`required variable ${name} is missing: ${text}`);
      return operator ? (text ?? '') : '';
    },
  );
}

function interpolated(value: unknown, variables: Record<string, string>): unknown {
  if (typeof value === 'string') return interpolate(value, variables);
  if (Array.isArray(value)) return value.map((item) => interpolated(item, variables));
  if (value instanceof Override) return new Override(interpolated(value.value, variables));
  if (isRecord(value) && !(value instanceof Reset)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolated(item, variables)]),
    );
  }
  return value;
}

function mergeValue(base: unknown, override: unknown): unknown {
  if (override instanceof Reset) return undefined;
  if (override instanceof Override) return override.value;
  if (Array.isArray(base) && Array.isArray(override))
    return [...(base as unknown[]), ...(override as unknown[])];
  if (isRecord(base) && isRecord(override)) {
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(override)) {
      const next = mergeValue(base[key], value);
      if (next === undefined) delete merged[key];
      else merged[key] = next;
    }
    return merged;
  }
  return override;
}

/** The override's services, interpolated with `variables` (the compose e2e's). */
export function loadE2eOverride(variables: Record<string, string>): Compose {
  return interpolated(parseCompose(readRepoFile(E2E_OVERRIDE)), variables) as Compose;
}

/** docker-compose.yml with `override` merged on top, as Compose merges the two files. */
export function mergeCompose(base: Compose, override: Compose): Compose {
  return mergeValue(base, override) as Compose;
}

/**
 * A service's environment with its `scripted:` model path read back through the service's bind
 * mounts to the file on this machine: what the container reads, seen from outside it.
 */
export function environmentAsMounted(service: ComposeService): Env {
  const env = composeEnv(service['environment']);
  const model = env['CARAVEL_MODEL'];
  if (!model?.startsWith('scripted:')) return env;
  const inside = model.slice('scripted:'.length);
  const volumes = ((service['volumes'] as unknown[] | undefined) ?? []).map(String);
  const source = volumes.map((v) => v.split(':')).find((parts) => parts[1] === inside)?.[0];
  return source ? { ...env, CARAVEL_MODEL: `scripted:${source}` } : env;
}
