import { metaOf } from '@caravel/config';
import type { z } from 'zod';

/** Where the Helm chart reads the map from (`.Files.Get`), relative to the repository root. */
export const SECRET_KEYS_FILE = 'infra/helm/caravel/files/secret-keys.yaml';

/**
 * Secret keys the chart never takes from the install's Secret: `DATABASE_URL` reaches every pod
 * from its own Secret (`database.existingSecret`, or the one the chart builds).
 */
const HANDLED_APART = new Set(['DATABASE_URL']);

/** A service and the environment keys its distributed process reads (an entry of `SERVICES`). */
export interface ServiceKeys {
  name: string;
  schema: z.ZodObject;
}

/** The keys of a schema documented `secret: true`, in the schema's order, less those set apart. */
export function secretKeysOf(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([key, value]) => metaOf(value as z.ZodType)?.secret && !HANDLED_APART.has(key))
    .map(([key]) => key);
}

/**
 * Renders the chart's map of service → the secret keys its schema reads. The chart gives each
 * service a `secretKeyRef` for these keys only, so a pod never holds a credential its own code
 * does not read (an exploit in the ingress's webhook parser finds no model key).
 */
export function renderSecretKeys(services: readonly ServiceKeys[]): string {
  const lines = [
    '# Generated from the config schemas (apps/*/src/*.config.ts) by `npm run helm:secret-keys`.',
    '# Do not edit by hand. Each service, and the keys documented `secret: true` that its schema',
    '# reads: with `secrets.existingSecret` set, the chart gives its pods these keys of that Secret',
    '# and no other (DATABASE_URL comes from the database Secret).',
  ];
  for (const service of services) {
    const keys = secretKeysOf(service.schema);
    lines.push(keys.length === 0 ? `${service.name}: []` : `${service.name}:`);
    for (const key of keys) lines.push(`  - ${key}`);
  }
  return `${lines.join('\n')}\n`;
}
