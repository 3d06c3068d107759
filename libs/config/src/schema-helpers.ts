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

/** A whole number above zero, from the environment. */
export const positiveInt = (fallback: number) =>
  z.coerce.number().int().positive().default(fallback);

/** A whole number, zero or more, from the environment (zero often means "no limit" or "off"). */
export const nonNegativeInt = (fallback: number) =>
  z.coerce.number().int().min(0).default(fallback);

/** A number, zero or more, from the environment. */
export const nonNegative = (fallback: number) => z.coerce.number().min(0).default(fallback);

/** Comma-separated entries, trimmed, empty ones dropped. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** What every entry of a {@link commaList} must look like. */
export interface ListEntryRule {
  pattern: RegExp;
  /** How a problem names the expected shape: `"x" is not <shape>`. */
  shape: string;
  /** Entries are compared lower-cased (GitHub owners and names are case-insensitive). */
  lowerCase?: boolean;
}

/**
 * A comma-separated list key (default empty): entries trimmed, empty ones dropped, and with a
 * rule, each entry that does not match it named in the problem. A fresh schema per call, since
 * {@link documented} keys its descriptions by schema.
 */
export function commaList(rule?: ListEntryRule) {
  return z
    .string()
    .default('')
    .transform((text, context) => {
      const entries = splitList(rule?.lowerCase ? text.toLowerCase() : text);
      for (const entry of entries) {
        if (rule && !rule.pattern.test(entry))
          context.addIssue({ code: 'custom', message: `"${entry}" is not ${rule.shape}` });
      }
      return entries;
    });
}
