import { z } from 'zod';

/** Metadata the `.env.example` renderer reads from each key. */
export interface EnvKeyMeta {
  description: string;
  example?: string;
  secret?: boolean;
}

const META = new WeakMap<z.ZodType, EnvKeyMeta>();

/** Attaches a description (and an example) to a config key. */
export function documented<T extends z.ZodType>(schema: T, meta: EnvKeyMeta): T {
  META.set(schema, meta);
  return schema;
}

export function metaOf(schema: z.ZodType): EnvKeyMeta | undefined {
  return META.get(schema);
}

/** A TCP port, from a string environment variable. */
export const port = (fallback: number): z.ZodType<number> =>
  z.coerce.number().int().min(0).max(65535).default(fallback);

/** `true`/`false`/`1`/`0` from the environment. */
export const flag = (fallback: boolean): z.ZodType<boolean> =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

export const logLevel = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'verbose'])
  .default('info');

export const natsUrl = z.string().regex(/^(nats|tls|ws|wss):\/\/[^\s]+$/, 'must be a nats:// URL');

export const databaseUrl = z
  .string()
  .regex(
    /^(postgres(ql)?:\/\/[^\s]+|pglite:.+)$/,
    'must be a postgres:// URL or pglite:<dir>|pglite:memory',
  );
