import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { renderServiceTables, SERVICE_TABLES } from './service-tables.js';
import { deriveServiceTables } from './table-map.derive.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

// The derivation type-checks every service's code once (which class each method is called on):
// tens of seconds on a busy 2-core machine.
jest.setTimeout(300_000);

describe('the table map (which tables each service may touch)', () => {
  let derived: ReturnType<typeof deriveServiceTables>;

  beforeAll(() => {
    derived = deriveServiceTables(root, Object.keys(SERVICE_TABLES));
  });

  it('reads every query of every service off the code', () => {
    expect(derived.problems).toEqual([]);
  });

  it('is what the code of each service touches: npm run db:table-map writes it', () => {
    // A service that starts using a repository whose tables it has no grant for fails here:
    // regenerate, read the diff (is that service meant to touch those tables?) and commit it.
    expect(renderServiceTables(derived.map)).toBe(renderServiceTables(SERVICE_TABLES));
  });
});
