import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import { sql } from 'kysely';
import type { TriggerSource } from '@caravel/contracts';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { countingStatements } from '../testing/statement-counter.js';
import { DeliveryRepository, type NewDelivery } from './delivery.repository.js';

await describeEachDatabase('delivery claims', openDatabase, (target) => {
  let database: Database;
  let deliveries: DeliveryRepository;

  beforeAll(async () => {
    database = await target.open();
    deliveries = new DeliveryRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  const delivery = (overrides: Partial<NewDelivery> = {}): NewDelivery => ({
    id: randomUUID(),
    source: 'github',
    deliveryId: randomUUID(),
    semanticKey: `issue_comment:${randomUUID()}`,
    threadId: randomUUID(),
    event: 'issue_comment.created',
    payload: { comment: { body: '@caravel go' } },
    payloadSha256: createHash('sha256').update('raw').digest('hex'),
    ...overrides,
  });

  it('claims a delivery once; a repeat sees the claim pending, then settled', async () => {
    const first = delivery();
    expect(await deliveries.claim(first)).toEqual({ outcome: 'claimed' });
    const retry = await deliveries.claim({ ...first, id: randomUUID() });
    expect(retry).toMatchObject({
      outcome: 'pending',
      existing: { id: first.id, settledAt: null },
    });

    await deliveries.settle(first.id);
    expect(await deliveries.claim({ ...first, id: randomUUID() })).toMatchObject({
      outcome: 'settled',
      existing: { id: first.id, settledAt: expect.any(Date) as unknown },
    });
    const twin = delivery({ semanticKey: first.semanticKey ?? null });
    expect(await deliveries.claim(twin)).toMatchObject({
      outcome: 'settled',
      existing: { id: first.id },
    });
  });

  it('stores a claim as given: its payload, fingerprint and receipt time, else the time of the statement', async () => {
    const received = new Date('2026-11-30T12:34:56.789Z');
    const given = delivery({ receivedAt: received, semanticKey: null });
    const unstamped = delivery({ payloadSha256: null });
    const before = await sql<{ now: Date }>`select now() as now`.execute(database.db);
    await Promise.all([deliveries.claim(given), deliveries.claim(unstamped)]);
    const [storedGiven, storedUnstamped] = await Promise.all(
      [given, unstamped].map((each) => deliveries.get(each.id)),
    );
    expect(storedGiven).toMatchObject({
      deliveryId: given.deliveryId,
      semanticKey: null,
      threadId: given.threadId,
      event: given.event,
      payload: given.payload,
      payloadSha256: given.payloadSha256,
      receivedAt: received,
      settledAt: null,
    });
    expect(storedUnstamped).toMatchObject({ payloadSha256: null, settledAt: null });
    expect(storedUnstamped!.receivedAt.getTime()).toBeGreaterThanOrEqual(
      new Date(before.rows[0]!.now).getTime(),
    );
  });

  it('releases an unsettled claim so the retry claims it again, and never a settled one', async () => {
    const failed = delivery();
    expect(await deliveries.claim(failed)).toEqual({ outcome: 'claimed' });
    expect(await deliveries.release(failed.id)).toBe(true);
    expect(await deliveries.get(failed.id)).toBeNull();
    expect(await deliveries.claim(failed)).toEqual({ outcome: 'claimed' });

    await deliveries.settle(failed.id);
    expect(await deliveries.release(failed.id)).toBe(false);
    expect(await deliveries.get(failed.id)).toMatchObject({
      settledAt: expect.any(Date) as unknown,
    });
  });

  it('keeps the first settle time, and a settle after a release changes nothing', async () => {
    const once = delivery();
    await deliveries.claim(once);
    const at = new Date(Date.UTC(2026, 0, 2, 10));
    await deliveries.settle(once.id, at);
    await deliveries.settle(once.id, new Date(Date.UTC(2026, 0, 3)));
    expect((await deliveries.get(once.id))?.settledAt).toEqual(at);

    const gone = delivery();
    await deliveries.claim(gone);
    await deliveries.release(gone.id);
    await deliveries.settle(gone.id);
    expect(await deliveries.get(gone.id)).toBeNull();
  });

  it('records a delivery settled at once, and keeps the raw bytes fingerprint with it', async () => {
    const recorded = delivery({ semanticKey: null });
    expect(await deliveries.record(recorded)).toBe(true);
    expect(await deliveries.get(recorded.id)).toMatchObject({
      payloadSha256: recorded.payloadSha256,
      settledAt: expect.any(Date) as unknown,
    });
    expect(await deliveries.claim({ ...recorded, id: randomUUID() })).toMatchObject({
      outcome: 'settled',
    });
  });

  it("stores the payload's JSON text as given when there is one, instead of the payload", async () => {
    const stored = delivery({
      payload: { ignored: true },
      payloadJson: '{"comment": {"body": "@caravel go"}, "big": 12345678901234567890}',
    });
    await deliveries.claim(stored);
    const { rows } = await sql<{ text: string }>`
      select payload::text as text from deliveries where id = ${stored.id}
    `.execute(database.db);
    expect(rows[0]!.text).toBe('{"big": 12345678901234567890, "comment": {"body": "@caravel go"}}');
  });

  describe('what the database accepts', () => {
    it('stores replacement characters, pairs and control characters as given', async () => {
      const payload = { text: 'a\uFFFDb 😀 \u0001\u001b', '\uFFFDkey': ['\uFFFD'] };
      const stored = delivery({ payload });
      await deliveries.claim(stored);
      expect((await deliveries.get(stored.id))?.payload).toEqual(payload);
    });

    it.each([
      ['NUL', { text: 'a\u0000b' }],
      ['a lone surrogate', { text: 'a\uD800b' }],
    ])(
      'refuses %s, which is why the ingress boundary replaces it before anything is stored',
      async (_, payload) => {
        await expect(deliveries.claim(delivery({ payload }))).rejects.toThrow(/json|unicode/i);
      },
    );
  });

  describe('group commit', () => {
    it('claims 64 concurrent deliveries in two statements: the first alone, the rest together', async () => {
      const counter = countingStatements(database.db);
      const grouped = new DeliveryRepository(counter.db);
      const batch = Array.from({ length: 64 }, () => delivery());
      const claims = await Promise.all(batch.map((each) => grouped.claim(each)));
      expect(claims).toEqual(batch.map(() => ({ outcome: 'claimed' })));
      expect(counter.statements()).toBeLessThanOrEqual(2);
      const stored = await Promise.all(batch.map((each) => deliveries.get(each.id)));
      expect(stored.map((row) => row?.settledAt)).toEqual(batch.map(() => null));
    });

    it('gathers the claims made in one turn into one statement where statements run on this thread', async () => {
      const counter = countingStatements(database.db);
      const grouped = new DeliveryRepository(counter.db, { statementsOnThisThread: true });
      const batch = Array.from({ length: 64 }, () => delivery());
      const claims = await Promise.all(batch.map((each) => grouped.claim(each)));
      expect(claims).toEqual(batch.map(() => ({ outcome: 'claimed' })));
      expect(counter.statements()).toBe(1);
    });

    it('claims exactly one of twins in one batch; the other finds it pending', async () => {
      const grouped = new DeliveryRepository(database.db);
      const first = delivery();
      const twin = delivery({ semanticKey: first.semanticKey ?? null });
      const retry = { ...first };
      // The lone claim goes at once; the three queued behind it go as one statement.
      const [, ...claims] = await Promise.all(
        [delivery(), first, twin, retry].map((each) => grouped.claim(each)),
      );
      expect(claims.filter((claim) => claim.outcome === 'claimed')).toHaveLength(1);
      expect(claims.filter((claim) => claim.outcome === 'pending')).toEqual([
        { outcome: 'pending', existing: expect.objectContaining({ settledAt: null }) as unknown },
        { outcome: 'pending', existing: expect.objectContaining({ settledAt: null }) as unknown },
      ]);
    });

    it('claims a delivery whose id is given in upper case', async () => {
      const grouped = new DeliveryRepository(database.db);
      const upper = delivery({ id: randomUUID().toUpperCase() });
      const claims = await Promise.all([delivery(), upper].map((each) => grouped.claim(each)));
      expect(claims).toEqual([{ outcome: 'claimed' }, { outcome: 'claimed' }]);
    });

    it('fails only the caller whose row the database refuses; the rest of its batch is claimed', async () => {
      const grouped = new DeliveryRepository(database.db);
      const refused = delivery({ source: 'carrier-pigeon' as TriggerSource });
      const good = [delivery(), delivery(), delivery()];
      const [lone, bad, ...rest] = await Promise.allSettled(
        [delivery(), refused, ...good].map((each) => grouped.claim(each)),
      );
      expect(lone).toEqual({ status: 'fulfilled', value: { outcome: 'claimed' } });
      expect(bad).toMatchObject({ status: 'rejected', reason: expect.any(Error) as unknown });
      expect(rest).toEqual(
        good.map(() => ({ status: 'fulfilled', value: { outcome: 'claimed' } })),
      );
      expect(await deliveries.get(refused.id)).toBeNull();
    });

    it('settles concurrent claims in two statements, each once', async () => {
      const batch = Array.from({ length: 16 }, () => delivery());
      await Promise.all(batch.map((each) => deliveries.claim(each)));
      const counter = countingStatements(database.db);
      const grouped = new DeliveryRepository(counter.db);
      await Promise.all(batch.map((each) => grouped.settle(each.id)));
      expect(counter.statements()).toBeLessThanOrEqual(2);
      const stored = await Promise.all(batch.map((each) => deliveries.get(each.id)));
      expect(stored.every((row) => row?.settledAt instanceof Date)).toBe(true);
      expect(await grouped.claim({ ...batch[5]!, id: randomUUID() })).toMatchObject({
        outcome: 'settled',
      });
    });

    it('runs a claim given a transaction on that transaction, outside any batch', async () => {
      const inside = delivery();
      await expect(
        database.transaction(async (trx) => {
          expect(await deliveries.claim(inside, trx)).toEqual({ outcome: 'claimed' });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await deliveries.get(inside.id)).toBeNull();
    });
  });
});
