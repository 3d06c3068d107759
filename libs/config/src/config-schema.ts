import { z } from 'zod';

/**
 * An app's configuration schema: an object of environment keys (each `documented()`), usually
 * `.transform()`ed at parse time into the app's nested, typed configuration. Validation and the
 * `.env.example` renderer work on the keys; services only ever see the typed result.
 */
export type ConfigSchema = z.ZodObject | z.ZodPipe<z.ZodObject, z.ZodType>;

/** The environment keys of a config schema (the object before its transform). */
export function envSchemaOf(schema: ConfigSchema): z.ZodObject {
  return schema instanceof z.ZodPipe ? schema.in : schema;
}
