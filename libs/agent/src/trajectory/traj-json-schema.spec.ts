import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { TRAJ_JSON_SCHEMA_FILE, trajJsonSchema } from './traj-json-schema.js';

describe('traj.schema.json', () => {
  it('matches the zod schema (regenerate: npx jiti libs/agent/src/trajectory/generate-traj-schema.ts)', () => {
    const committed: unknown = JSON.parse(
      readFileSync(new URL(`./${TRAJ_JSON_SCHEMA_FILE}`, import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(trajJsonSchema());
  });

  it('is a draft-07 schema that requires the fields every .traj has', () => {
    const schema = trajJsonSchema();
    expect(schema['$schema']).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema['required']).toEqual([
      'trajectory',
      'history',
      'info',
      'replay_config',
      'environment',
    ]);
  });
});
