import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { SandboxRepository } from './sandbox.repository.js';

const t = (seconds: number): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));

await describeEachDatabase('sandbox repository (retire, replace, idle)', openDatabase, (target) => {
  let database: Database;
  let sandboxes: SandboxRepository;

  beforeAll(async () => {
    database = await target.open();
    sandboxes = new SandboxRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  const bindNew = async (threadId: string, externalId: string, at = t(1)) =>
    (await sandboxes.bind({ id: randomUUID(), threadId, provider: 'local', externalId, at }))
      .sandbox;

  describe('retire', () => {
    it('unbinds the sandbox and records why, where its work went and when it was made', async () => {
      const threadId = randomUUID();
      const bound = await bindNew(threadId, 'sb-a');
      const retired = await sandboxes.retire(bound.id, {
        reason: 'reclaimed',
        kept: false,
        snapshotPath: '/data/snapshots/x.bundle',
        snapshotCommit: 'abc123',
        at: t(50),
      });
      expect(retired).toEqual({
        id: bound.id,
        threadId,
        provider: 'local',
        externalId: 'sb-a',
        reason: 'reclaimed',
        kept: false,
        snapshotPath: '/data/snapshots/x.bundle',
        snapshotCommit: 'abc123',
        createdAt: t(1),
        retiredAt: t(50),
      });
      expect(await sandboxes.getByThread(threadId)).toBeNull();
      expect(await sandboxes.listRetired(threadId)).toEqual([retired]);
    });

    it('answers null when the sandbox was already retired, recording nothing twice', async () => {
      const threadId = randomUUID();
      const bound = await bindNew(threadId, 'sb-b');
      expect(await sandboxes.retire(bound.id, { reason: 'gone', kept: false })).not.toBeNull();
      expect(await sandboxes.retire(bound.id, { reason: 'gone', kept: false })).toBeNull();
      expect(await sandboxes.listRetired(threadId)).toHaveLength(1);
    });
  });

  describe('replace', () => {
    it('moves the thread to the new sandbox and keeps the old one on record', async () => {
      const threadId = randomUUID();
      const old = await bindNew(threadId, 'sb-old');
      const nextId = randomUUID();
      const replaced = await sandboxes.replace(
        old.id,
        { reason: 'recreated', kept: true, at: t(20) },
        { id: nextId, threadId, provider: 'local', externalId: 'sb-new', at: t(20) },
      );
      expect(replaced?.retired).toMatchObject({ id: old.id, reason: 'recreated', kept: true });
      expect(replaced?.sandbox).toMatchObject({ id: nextId, externalId: 'sb-new' });
      expect((await sandboxes.getByThread(threadId))?.externalId).toBe('sb-new');
      expect((await sandboxes.listRetired(threadId)).map((r) => r.externalId)).toEqual(['sb-old']);
    });

    it('changes nothing when the old sandbox is no longer bound', async () => {
      const threadId = randomUUID();
      const current = await bindNew(threadId, 'sb-current');
      const replaced = await sandboxes.replace(
        randomUUID(),
        { reason: 'recreated', kept: true },
        { id: randomUUID(), threadId, provider: 'local', externalId: 'sb-other' },
      );
      expect(replaced).toBeNull();
      expect(await sandboxes.getByThread(threadId)).toEqual(current);
      expect(await sandboxes.listRetired(threadId)).toEqual([]);
    });

    it('rolls the retirement back when the new binding fails', async () => {
      const threadId = randomUUID();
      const old = await bindNew(threadId, 'sb-keep');
      const taken = await bindNew(randomUUID(), 'sb-elsewhere');
      await expect(
        sandboxes.replace(
          old.id,
          { reason: 'recreated', kept: true },
          // The primary key is taken by another thread's sandbox: the insert fails.
          { id: taken.id, threadId, provider: 'local', externalId: 'sb-dup' },
        ),
      ).rejects.toThrow();
      expect((await sandboxes.getByThread(threadId))?.externalId).toBe('sb-keep');
      expect(await sandboxes.listRetired(threadId)).toEqual([]);
    });
  });

  it('lists bindings idle since a time, least recently used first', async () => {
    const base = new Date(Date.UTC(2030, 0, 1));
    const at = (minutes: number) => new Date(base.getTime() + minutes * 60_000);
    const a = await bindNew(randomUUID(), 'idle-a', at(5));
    const b = await bindNew(randomUUID(), 'idle-b', at(1));
    const fresh = await bindNew(randomUUID(), 'fresh', at(30));
    const idle = (await sandboxes.listIdle(at(10))).filter((row) => row.lastUsedAt >= base);
    expect(idle.map((row) => row.id)).toEqual([b.id, a.id]);
    expect(idle.map((row) => row.id)).not.toContain(fresh.id);
    expect(await sandboxes.listIdle(at(10), 1)).toHaveLength(1);
  });
});
