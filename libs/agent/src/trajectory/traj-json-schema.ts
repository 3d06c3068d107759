import { z } from 'zod';
import { trajSchema } from './traj.schema.js';

/** Where the generated schema lives, relative to this directory. */
export const TRAJ_JSON_SCHEMA_FILE = 'traj.schema.json';

/** The JSON Schema (draft-07) of the `.traj` files Caravel writes, derived from the zod schema. */
export function trajJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://caravel.dev/schemas/traj.schema.json',
    ...z.toJSONSchema(trajSchema, { target: 'draft-07', io: 'output' }),
  };
}

/** The committed file's exact text: the schema as pretty JSON with a final newline. */
export function renderTrajJsonSchema(): string {
  return `${JSON.stringify(trajJsonSchema(), null, 2)}\n`;
}
