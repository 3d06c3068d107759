import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { TriggerRefusalRepository, type NewTriggerRefusal } from './trigger-refusal.repository.js';

const at = (day: string) => new Date(`2026-12-${day}T08:00:00Z`);

const refusal = (threadId: string, overrides: Partial<NewTriggerRefusal> = {}) => ({
  triggerId: randomUUID(),
  threadId,
  source: 'slack' as const,
  author: 'slack:U0MALLORY',
  rule: 'repository_access' as const,
  reason:
    'slack:U0MALLORY (@mallory) asked for acme/payroll-private, which @mallory has no access to on GitHub',
  ...overrides,
});

await describeEachDatabase('trigger refusal repository', openDatabase, (target) => {
  let database: Database;
  let refusals: TriggerRefusalRepository;

  beforeAll(async () => {
    database = await target.open();
    refusals = new TriggerRefusalRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  it("records a trigger's refusal once, however often it is refused, and lists a thread's", async () => {
    const threadId = randomUUID();
    const first = refusal(threadId, { refusedAt: at('01') });
    const second = refusal(threadId, { rule: 'public_repo_gate', refusedAt: at('02') });

    expect(await refusals.record(first)).toBe(true);
    expect(await refusals.record({ ...first, reason: 'again' })).toBe(false);
    expect(await refusals.record(second)).toBe(true);
    await refusals.record(refusal(randomUUID()));

    expect(await refusals.listByThread(threadId)).toEqual([
      { ...first, refusedAt: at('01') },
      { ...second, refusedAt: at('02') },
    ]);
  });

  it('deletes refusals recorded before a time, and only those', async () => {
    const threadId = randomUUID();
    await refusals.record(refusal(threadId, { refusedAt: at('03') }));
    const kept = refusal(threadId, { refusedAt: at('05') });
    await refusals.record(kept);

    expect(await refusals.deleteBefore(at('04'))).toBeGreaterThanOrEqual(1);
    expect((await refusals.listByThread(threadId)).map((row) => row.triggerId)).toEqual([
      kept.triggerId,
    ]);
  });
});
