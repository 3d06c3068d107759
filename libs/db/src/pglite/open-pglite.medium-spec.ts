import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { sql } from 'kysely';
import { openPglite } from './open-pglite.js';

const silent = { log: () => undefined, warn: () => undefined };

describe('closing an embedded database', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  // Kysely closes its driver only once a query went through it: closed before any, PGlite was
  // left open and kept the process alive (a test file's Jest run waited ~35 s for the watchdog).
  it('closes PGlite when no query went through the database', async () => {
    const close = jest.spyOn(PGlite.prototype, 'close');
    const { database } = await openPglite(null, silent);
    await database.close();
    expect(close).toHaveBeenCalledTimes(1);
  }, 120_000);

  it('closes PGlite once when queries went through it, however often it is closed', async () => {
    const close = jest.spyOn(PGlite.prototype, 'close');
    const { database } = await openPglite(null, silent);
    await sql`select 1`.execute(database.db);
    await Promise.all([database.close(), database.close()]);
    expect(close).toHaveBeenCalledTimes(1);
  }, 120_000);
});
