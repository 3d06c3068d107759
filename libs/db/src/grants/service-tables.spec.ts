import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { renderServiceTables, SERVICE_TABLES } from './service-tables.js';
import { deriveServiceTables } from './table-map.derive.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

describe('the table map (which tables each service may touch)', () => {
  const derived = deriveServiceTables(root, Object.keys(SERVICE_TABLES));

  it('reads every query of every service off the code', () => {
    expect(derived.problems).toEqual([]);
  });

  it('is what the code of each service touches: npm run db:table-map writes it', () => {
    // A service that starts using a repository whose tables it has no grant for fails here:
    // regenerate, read the diff (is that service meant to touch those tables?) and commit it.
    expect(renderServiceTables(derived.map)).toBe(renderServiceTables(SERVICE_TABLES));
  });
});
