import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { SignInPinRepository } from './sign-in-pin.repository.js';

await describeEachDatabase('sign-in pin repository', openDatabase, (target) => {
  let database: Database;
  let pins: SignInPinRepository;

  beforeAll(async () => {
    database = await target.open();
    pins = new SignInPinRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  const login = () => `Octo-${randomUUID().slice(0, 8)}`;

  it('pins a login to the first account that signs in under it, in any case', async () => {
    const name = login();
    expect(await pins.pin(name, 583231)).toBe(583231);
    expect(await pins.pin(name.toUpperCase(), 999)).toBe(583231);
    expect(await pins.pin(name.toLowerCase(), 583231)).toBe(583231);
  });

  it('agrees on one account when two first sign-ins race', async () => {
    const name = login();
    const [first, second] = await Promise.all([pins.pin(name, 1), pins.pin(name, 2)]);
    expect(first).toBe(second);
    expect([1, 2]).toContain(first);
  });

  it('pins the next account after a release, and releases only what is pinned', async () => {
    const name = login();
    await pins.pin(name, 1);
    expect(await pins.release(name.toUpperCase())).toBe(true);
    expect(await pins.release(name)).toBe(false);
    expect(await pins.pin(name, 2)).toBe(2);
  });
});
