import { z } from 'zod';

const compiled = new WeakMap<z.ZodType, z.ZodType>();

/**
 * `schema` as zod's `z.compile` makes it, generated on its first use and kept: a value the schema
 * accepts goes through a generated parser (a trigger's data allocates a third of what the
 * runtime parser does), anything else through the runtime parser, so what a parse returns and
 * every issue it reports are the runtime's. A schema zod cannot compile is used as it is.
 * Generated lazily because a process parses few of the schemas it imports, and generating one
 * takes milliseconds.
 */
export function compiledSchema<S extends z.ZodType>(schema: S): S {
  let fast = compiled.get(schema) as S | undefined;
  if (!fast) {
    fast = z.compile(schema);
    compiled.set(schema, fast);
  }
  return fast;
}
