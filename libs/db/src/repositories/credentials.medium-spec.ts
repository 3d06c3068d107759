import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { isUniqueViolation } from '../connection/database-errors.js';
import { openDatabase } from '../connection/open-database.js';
import { IdentityRepository } from './identity.repository.js';
import { PersonalTokenRepository } from './personal-token.repository.js';
import { UserTokenRepository } from './user-token.repository.js';

await describeEachDatabase('identity and user-token repositories', openDatabase, (target) => {
  let database: Database;
  let tokens: UserTokenRepository;
  let identities: IdentityRepository;

  beforeAll(async () => {
    database = await target.open();
    tokens = new UserTokenRepository(database.db);
    identities = new IdentityRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  const token = (subject: string, keyId: string, ciphertext: string) => ({
    id: randomUUID(),
    provider: 'github',
    subject,
    kind: 'access' as const,
    ciphertext,
    keyId,
  });

  it('keeps one token per provider, subject and kind; a second store replaces it', async () => {
    const subject = `octo-${randomUUID()}`;
    const first = await tokens.upsert({ ...token(subject, 'k1', 'c1'), expiresAt: new Date(1e12) });
    const second = await tokens.upsert(token(subject, 'k2', 'c2'));

    expect(second.id).toBe(first.id);
    expect(await tokens.find('github', subject, 'access')).toMatchObject({
      ciphertext: 'c2',
      keyId: 'k2',
      expiresAt: null,
    });
    expect(await tokens.find('github', subject, 'refresh')).toBeNull();
    expect(await tokens.deleteSubject('github', subject)).toBe(1);
    expect(await tokens.find('github', subject, 'access')).toBeNull();
  });

  it('pages rows under other keys and swaps a ciphertext only if it is unchanged', async () => {
    const old = `old-${randomUUID()}`;
    const rows = await Promise.all(
      ['a', 'b', 'c'].map((s) => tokens.upsert(token(`${s}-${randomUUID()}`, old, `${s}-sealed`))),
    );
    const ids = rows.map((row) => row.id).sort();

    const firstPage = (await tokens.pageNotUnderKey({ notUnderKey: 'new', limit: 1000 })).filter(
      (row) => row.keyId === old,
    );
    expect(firstPage.map((row) => row.id)).toEqual(ids);
    const afterFirst = await tokens.pageNotUnderKey({
      notUnderKey: 'new',
      afterId: ids[0],
      limit: 1000,
    });
    expect(afterFirst.map((row) => row.id)).not.toContain(ids[0]);

    const target = rows[0]!;
    expect(
      await tokens.replaceCiphertext(target.id, 'stale', { ciphertext: 'x', keyId: 'new' }),
    ).toBe(false);
    expect(
      await tokens.replaceCiphertext(target.id, target.ciphertext, {
        ciphertext: 'x',
        keyId: 'new',
      }),
    ).toBe(true);
    const counts = await tokens.countByKey();
    expect(counts.get(old)).toBe(2);
    expect(counts.get('new')).toBeGreaterThanOrEqual(1);
  });

  it('links handles across sources and finds the person by any of them', async () => {
    const login = `octocat-${randomUUID()}`;
    const created = await identities.insert(randomUUID(), {
      githubLogin: login,
      displayName: 'Octo',
    });
    const linked = await identities.link(created.id, {
      slackUserId: `U${login}`,
      email: `${login}@acme.test`,
    });

    expect(linked).toMatchObject({
      githubLogin: login,
      slackUserId: `U${login}`,
      displayName: 'Octo',
    });
    expect(await identities.findBy('email', `${login}@acme.test`)).toEqual(linked);
    expect(await identities.findBy('slackUserId', `U${login}`)).toEqual(linked);
    expect(await identities.findBy('jiraAccountId', login)).toBeNull();
    expect(await identities.link(randomUUID(), { email: 'x@y' })).toBeNull();
    expect(await identities.list(1000)).toContainEqual(linked);
    expect(await identities.list(1)).toHaveLength(1);
  });

  it('refuses a handle that already belongs to another identity', async () => {
    const login = `dup-${randomUUID()}`;
    await identities.insert(randomUUID(), { githubLogin: login });
    const error = await identities
      .insert(randomUUID(), { githubLogin: login })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
  });

  it("keeps a person's API tokens: listed newest first, revoked only by their owner, uses noted once a minute", async () => {
    const personal = new PersonalTokenRepository(database.db);
    const login = `octo-${randomUUID().slice(0, 8)}`;
    const made = (id: string, scope: 'read' | 'act') =>
      personal.create({
        id,
        login,
        githubId: 7,
        name: scope,
        scope,
        secretSha256: 'a'.repeat(64),
        expiresAt: new Date(Date.now() + 3_600_000),
      });
    const reader = await made(randomUUID().replace(/-/g, '').slice(0, 16), 'read');
    const actor = await made(randomUUID().replace(/-/g, '').slice(0, 16), 'act');
    expect(reader).toMatchObject({ login, scope: 'read', revokedAt: null, lastUsedAt: null });
    expect((await personal.listFor(login)).map((t) => t.id).sort()).toEqual(
      [reader.id, actor.id].sort(),
    );

    expect(await personal.revoke(actor.id, 'someone-else')).toBe(false);
    expect(await personal.revoke(actor.id, login)).toBe(true);
    expect(await personal.revoke(actor.id, login)).toBe(false);
    expect((await personal.get(actor.id))?.revokedAt).toBeInstanceOf(Date);

    const at = new Date();
    await personal.touch(reader.id, at);
    await personal.touch(reader.id, new Date(at.getTime() + 10_000));
    expect((await personal.get(reader.id))?.lastUsedAt?.getTime()).toBe(at.getTime());
    await personal.touch(reader.id, new Date(at.getTime() + 61_000));
    expect((await personal.get(reader.id))?.lastUsedAt?.getTime()).toBe(at.getTime() + 61_000);
  });
});
