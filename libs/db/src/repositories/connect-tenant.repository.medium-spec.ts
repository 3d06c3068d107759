import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { ConnectTenantRepository } from './connect-tenant.repository.js';

await describeEachDatabase('connect tenant repository', openDatabase, (target) => {
  let database: Database;
  let tenants: ConnectTenantRepository;

  beforeAll(async () => {
    database = await target.open();
    tenants = new ConnectTenantRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  const install = (clientKey: string, sealedSecret: string, at: string) =>
    tenants.install({
      clientKey,
      baseUrl: 'https://acme.atlassian.net/wiki',
      productType: 'confluence',
      sealedSecret,
      keyId: 'k1',
      at: new Date(at),
    });

  it('stores an install and finds it while installed', async () => {
    const clientKey = randomUUID();
    await install(clientKey, 'v1.k1.sealed-one', '2026-11-30T10:00:00Z');
    const row = await tenants.getInstalled(clientKey);
    expect(row).toMatchObject({
      clientKey,
      baseUrl: 'https://acme.atlassian.net/wiki',
      sealedSecret: 'v1.k1.sealed-one',
      keyId: 'k1',
      uninstalledAt: null,
    });
    expect(await tenants.getInstalled(randomUUID())).toBeNull();
  });

  it('hides an uninstalled tenant and brings it back, with the new secret, on reinstall', async () => {
    const clientKey = randomUUID();
    await install(clientKey, 'v1.k1.first', '2026-11-30T10:00:00Z');
    expect(await tenants.uninstall(clientKey, new Date('2026-11-30T11:00:00Z'))).toBe(true);
    expect(await tenants.uninstall(clientKey)).toBe(false);
    expect(await tenants.getInstalled(clientKey)).toBeNull();
    expect((await tenants.get(clientKey))?.uninstalledAt).toEqual(new Date('2026-11-30T11:00:00Z'));

    await install(clientKey, 'v1.k1.second', '2026-11-30T12:00:00Z');
    const back = await tenants.getInstalled(clientKey);
    expect(back?.sealedSecret).toBe('v1.k1.second');
    expect(back?.installedAt).toEqual(new Date('2026-11-30T12:00:00Z'));
  });

  it('replaces a sealed secret only while it is still the one read, and lists every tenant', async () => {
    const clientKey = randomUUID();
    await install(clientKey, 'v1.t1.old', '2026-11-30T10:00:00Z');
    const to = { sealedSecret: 'v1.c1.new', keyId: 'c1', at: new Date('2026-12-01T10:00:00Z') };
    expect(await tenants.replaceSecret(clientKey, 'v1.t1.stale', to)).toBe(false);
    expect(await tenants.replaceSecret(clientKey, 'v1.t1.old', to)).toBe(true);
    expect(await tenants.get(clientKey)).toMatchObject({
      sealedSecret: 'v1.c1.new',
      keyId: 'c1',
      updatedAt: to.at,
    });
    expect(await tenants.replaceSecret(clientKey, 'v1.t1.old', to)).toBe(false);
    const listed = await tenants.list();
    expect(listed.map((row) => row.clientKey)).toContain(clientKey);
    expect(listed.map((row) => row.clientKey)).toEqual(
      [...listed.map((row) => row.clientKey)].sort(),
    );
  });

  it('does not uninstall a tenant it never saw', async () => {
    expect(await tenants.uninstall(randomUUID())).toBe(false);
  });
});
