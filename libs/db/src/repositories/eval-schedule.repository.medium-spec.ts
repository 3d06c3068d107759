import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { EvalReviewCaseRepository, type EvalReviewCaseRow } from './eval-review-case.repository.js';
import { EvalRunRepository, type NewEvalRun } from './eval-run.repository.js';
import { EvalScheduleRepository, type NewEvalSchedule } from './eval-schedule.repository.js';

const aRun = (overrides: Partial<NewEvalRun> = {}): NewEvalRun => ({
  id: randomUUID(),
  suite: `set-${randomUUID().slice(0, 8)}`,
  config: 'reviewer',
  model: 'scripted:review.yaml',
  settings: {},
  attemptsPerTask: 1,
  createdAt: new Date('2026-12-01T10:00:00Z'),
  ...overrides,
});

const aCase = (overrides: Partial<EvalReviewCaseRow> = {}): EvalReviewCaseRow => ({
  caseId: 'discount',
  expected: 2,
  found: 3,
  matched: 1,
  precision: 1 / 3,
  recall: 0.5,
  f1: 0.4,
  modelCalls: 7,
  inputTokens: 12_000,
  outputTokens: 800,
  costUsd: 0.25,
  wallMs: 5100,
  error: null,
  detail: { findings: [{ id: 'f-1' }] },
  ...overrides,
});

const aSchedule = (overrides: Partial<NewEvalSchedule> = {}): NewEvalSchedule => ({
  id: randomUUID(),
  name: `nightly-${randomUUID().slice(0, 8)}`,
  kind: 'harbor',
  source: '/srv/evals/tasks',
  config: 'current',
  model: 'anthropic:claude-sonnet-4-5',
  settings: { REASONING_EFFORT: 'high' },
  attempts: 3,
  hour: 2,
  createdBy: 'hubot',
  createdAt: new Date('2026-12-01T09:00:00Z'),
  ...overrides,
});

await describeEachDatabase('eval review cases and schedules', openDatabase, (target) => {
  let database: Database;
  let runs: EvalRunRepository;
  let cases: EvalReviewCaseRepository;
  let schedules: EvalScheduleRepository;

  beforeAll(async () => {
    database = await target.open();
    runs = new EvalRunRepository(database.db);
    cases = new EvalReviewCaseRepository(database.db);
    schedules = new EvalScheduleRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('records a review run and each case once, the list summing the reviewed cases', async () => {
    const run = await runs.start(aRun({ kind: 'review' }));
    expect(run).toMatchObject({ kind: 'review', scheduleId: null, scheduleSlot: null });
    const discount = aCase();
    const clean = aCase({ caseId: 'clean', expected: 0, found: 1, matched: 0, recall: null });
    const failed = aCase({ caseId: 'broken', expected: 0, found: 0, matched: 0, error: 'no diff' });
    expect(await cases.record(run.id, [discount])).toBe(1);
    // A resumed run records again what it holds: only the new cases are kept.
    expect(await cases.record(run.id, [discount, clean, failed])).toBe(2);
    expect(await cases.casesOf(run.id)).toEqual([failed, clean, discount]);
    // A failed case reviewed again replaces its row; a scored one is never replaced.
    const retried = { ...failed, error: null, expected: 1, found: 1, matched: 1 };
    expect(await cases.record(run.id, [retried, { ...discount, matched: 2 }])).toBe(1);
    expect(await cases.casesOf(run.id)).toEqual([retried, clean, discount]);
    const counts = await cases.countsOf([run.id, randomUUID()]);
    expect(counts.get(run.id)?.map((c) => [c.caseId, c.expected, c.found, c.matched])).toEqual([
      ['broken', 1, 1, 1],
      ['clean', 0, 1, 0],
      ['discount', 2, 3, 1],
    ]);
    const [listed] = await runs.list({ suite: run.suite, limit: 5 });
    expect(listed).toMatchObject({ cases: 3, expected: 3, found: 5, matched: 2, attempts: 0 });
    expect(listed?.costUsd).toBeCloseTo(0.75);
    expect(await runs.list({ suite: run.suite, kind: 'harbor', limit: 5 })).toEqual([]);
  });

  it('registers schedules by unique name, changes them, and lists the active ones', async () => {
    const schedule = aSchedule();
    const registered = await schedules.register(schedule);
    expect(registered).toMatchObject({
      id: schedule.id,
      state: 'active',
      settings: { REASONING_EFFORT: 'high' },
      failedSlot: null,
      lastError: null,
    });
    expect(await schedules.register(aSchedule({ name: schedule.name }))).toBeNull();
    const at = new Date('2026-12-01T12:00:00Z');
    const paused = await schedules.change(schedule.id, { state: 'paused', hour: 23 }, at);
    expect(paused).toMatchObject({ state: 'paused', hour: 23, updatedAt: at, attempts: 3 });
    expect((await schedules.list({ active: true })).map((s) => s.id)).not.toContain(schedule.id);
    expect((await schedules.list()).map((s) => s.id)).toContain(schedule.id);
    expect(await schedules.change(randomUUID(), { hour: 1 }, at)).toBeNull();
  });

  it("links each night's run to its schedule, once per night, and keeps a failed night", async () => {
    const schedule = aSchedule();
    await schedules.register(schedule);
    const night = new Date('2026-12-02T02:00:00Z');
    expect(await schedules.runFor(schedule.id, night)).toBeNull();
    const run = await runs.start(aRun({ schedule: { id: schedule.id, slot: night } }));
    expect((await schedules.runFor(schedule.id, night))?.id).toBe(run.id);
    // A second run for the same night is refused by the database.
    await expect(
      runs.start(aRun({ schedule: { id: schedule.id, slot: night } })),
    ).rejects.toThrow();
    await runs.start(aRun({ suite: run.suite, createdAt: new Date('2026-12-01T11:00:00Z') }));
    expect(
      (await runs.list({ scheduleId: schedule.id, limit: 10 })).map((r) => r.scheduleSlot),
    ).toEqual([night]);
    await schedules.failed(schedule.id, night, 'tasks: no task in it');
    expect(await schedules.find(schedule.id)).toMatchObject({
      failedSlot: night,
      lastError: 'tasks: no task in it',
    });
  });
});
