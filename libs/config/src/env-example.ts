import { z } from 'zod';
import { envSchemaOf, type ConfigSchema } from './config-schema.js';
import { metaOf } from './schema-helpers.js';

export interface EnvSection {
  title: string;
  /** The section's keys: a config schema, whose transform (if any) is not rendered. */
  schema: ConfigSchema;
}

function defaultOf(schema: z.ZodType): string | undefined {
  const result = schema.safeParse(undefined);
  if (!result.success || result.data === undefined) return undefined;
  const value: unknown = result.data;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Renders `.env.example` from the config schemas: one commented block per section. */
export function renderEnvExample(sections: readonly EnvSection[]): string {
  const lines = [
    '# Generated from the config schemas (apps/*/src/*.config.ts). Do not edit by hand.',
    '',
  ];
  for (const section of sections) {
    lines.push(`# --- ${section.title} ---`);
    for (const [key, value] of Object.entries(envSchemaOf(section.schema).shape)) {
      const schema = value as z.ZodType;
      const meta = metaOf(schema);
      const fallback = defaultOf(schema);
      const required = fallback === undefined && !schema.safeParse(undefined).success;
      lines.push(`# ${meta?.description ?? key}${required ? ' (required)' : ''}`);
      const shown = meta?.secret ? '' : (meta?.example ?? fallback ?? '');
      lines.push(`${required ? '' : '# '}${key}=${shown}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
