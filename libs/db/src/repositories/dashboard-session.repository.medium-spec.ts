import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import {
  DashboardSessionRepository,
  type NewDashboardSession,
} from './dashboard-session.repository.js';

const HOUR = 3_600_000;
const T0 = new Date('2026-12-05T10:00:00Z');
const at = (hours: number) => new Date(T0.getTime() + hours * HOUR);

await describeEachDatabase('dashboard session repository', openDatabase, (target) => {
  let database: Database;
  let sessions: DashboardSessionRepository;

  beforeAll(async () => {
    database = await target.open();
    sessions = new DashboardSessionRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  /** A fresh login and a session of theirs, twelve hours long from `created`. */
  const login = () => `Octo-${randomUUID().slice(0, 8)}`;
  const session = (who: string, created = T0): NewDashboardSession => ({
    idSha256: createHash('sha256').update(randomUUID()).digest('hex'),
    login: who,
    githubId: 583231,
    role: 'member',
    createdAt: created,
    expiresAt: new Date(created.getTime() + 12 * HOUR),
    userAgent: 'Mozilla/5.0',
    address: '203.0.113.7',
  });

  it('keeps a sign-in under its hash and the login lower-cased, and finds it by that hash', async () => {
    const who = login();
    const made = session(who);
    const row = await sessions.create(made);
    expect(row).toMatchObject({
      idSha256: made.idSha256,
      login: who.toLowerCase(),
      lastSeenAt: T0,
      revokedAt: null,
      revokedReason: null,
    });
    expect(await sessions.get(made.idSha256)).toEqual(row);
    expect(await sessions.get('0'.repeat(64))).toBeNull();
  });

  it('notes a use only when the last one noted is at or before the time asked', async () => {
    const made = session(login());
    await sessions.create(made);
    await sessions.touch(made.idSha256, at(0.01), at(-1));
    expect((await sessions.get(made.idSha256))?.lastSeenAt).toEqual(T0);
    await sessions.touch(made.idSha256, at(0.2), at(0.1));
    expect((await sessions.get(made.idSha256))?.lastSeenAt).toEqual(at(0.2));
  });

  it('revokes one session once, and all of a person’s live ones in any case', async () => {
    const who = login();
    const one = session(who);
    const three = session(who);
    const other = session(login());
    for (const made of [one, session(who), three, other]) await sessions.create(made);
    const signOut = { reason: 'sign_out', by: who, at: at(1) } as const;
    expect(await sessions.revoke(one.idSha256, signOut)).toBe(true);
    expect(await sessions.revoke(one.idSha256, signOut)).toBe(false);
    expect((await sessions.listLive(who, at(1))).length).toBe(2);
    const admin = { reason: 'admin', by: 'hubot', at: at(2) } as const;
    expect(await sessions.revokeAll(who.toUpperCase(), admin)).toBe(2);
    expect(await sessions.listLive(who, at(2))).toEqual([]);
    expect(await sessions.get(three.idSha256)).toMatchObject({
      revokedAt: at(2),
      revokedReason: 'admin',
      revokedBy: 'hubot',
    });
    expect(await sessions.get(one.idSha256)).toMatchObject({ revokedReason: 'sign_out' });
    expect((await sessions.listLive(other.login, at(2))).length).toBe(1);
  });

  it('lists only live sessions, the most recently used first', async () => {
    const who = login();
    const early = session(who, at(-6));
    const late = session(who, at(-1));
    const expired = session(who, at(-13));
    for (const made of [early, late, expired]) await sessions.create(made);
    expect((await sessions.listLive(who, T0)).map((row) => row.idSha256)).toEqual([
      late.idSha256,
      early.idSha256,
    ]);
  });

  it('deletes expired sessions, revoked or not, and leaves live ones', async () => {
    const who = login();
    const old = session(who, at(-100));
    const oldRevoked = session(who, at(-100));
    const live = session(who);
    for (const made of [old, oldRevoked, live]) await sessions.create(made);
    await sessions.revoke(oldRevoked.idSha256, { reason: 'everywhere', by: who, at: at(-99) });
    expect(await sessions.deleteExpired(T0)).toBeGreaterThanOrEqual(2);
    expect(await sessions.get(old.idSha256)).toBeNull();
    expect(await sessions.get(oldRevoked.idSha256)).toBeNull();
    expect(await sessions.get(live.idSha256)).not.toBeNull();
  });

  it('refuses a role or a reason outside its set, a reason without a time, and a backwards life', async () => {
    const violation = { code: '23514' };
    const made = session(login());
    await sessions.create(made);
    const table = () => database.db.updateTable('dashboard_sessions');
    const where = made.idSha256;
    await expect(
      table()
        .set({ role: 'owner' as never })
        .where('id_sha256', '=', where)
        .execute(),
    ).rejects.toMatchObject(violation);
    await expect(
      table()
        .set({ revoked_at: at(1), revoked_reason: 'stolen' as never })
        .where('id_sha256', '=', where)
        .execute(),
    ).rejects.toMatchObject(violation);
    await expect(
      table().set({ revoked_reason: 'admin' }).where('id_sha256', '=', where).execute(),
    ).rejects.toMatchObject(violation);
    await expect(sessions.create({ ...session(login()), expiresAt: at(-1) })).rejects.toMatchObject(
      violation,
    );
  });
});
