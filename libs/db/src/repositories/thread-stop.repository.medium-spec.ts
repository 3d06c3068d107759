import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { ThreadStopRepository } from './thread-stop.repository.js';

const at = (time: string) => new Date(`2026-12-04T08:00:${time}Z`);

await describeEachDatabase('thread stop repository', openDatabase, (target) => {
  let database: Database;
  let stops: ThreadStopRepository;

  beforeAll(async () => {
    database = await target.open();
    stops = new ThreadStopRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  it("answers with the thread's stop for a trigger received at or before it, not after", async () => {
    const threadId = randomUUID();
    expect(await stops.since(threadId, at('00'))).toBeNull();
    await stops.record({ threadId, at: at('10'), by: 'slack:U1' });

    expect(await stops.since(threadId, at('09'))).toMatchObject({
      threadId,
      requestedAt: at('10'),
      requestedBy: 'slack:U1',
    });
    expect(await stops.since(threadId, at('10'))).not.toBeNull();
    expect(await stops.since(threadId, at('11'))).toBeNull();
    expect(await stops.since(randomUUID(), at('00'))).toBeNull();
  });

  it('keeps the latest stop when an older one is handled late or one is recorded again', async () => {
    const threadId = randomUUID();
    await stops.record({ threadId, at: at('20'), by: 'slack:U2' });
    await stops.record({ threadId, at: at('15'), by: 'slack:U1' });
    await stops.record({ threadId, at: at('20'), by: 'slack:U2' });
    expect(await stops.since(threadId, at('00'))).toMatchObject({
      requestedAt: at('20'),
      requestedBy: 'slack:U2',
    });

    await stops.record({ threadId, at: at('30'), by: 'synthetic:dashboard' });
    expect(await stops.since(threadId, at('25'))).toMatchObject({
      requestedBy: 'synthetic:dashboard',
    });
  });
});
