import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { EvalRunRepository, type EvalAttemptRow, type NewEvalRun } from './eval-run.repository.js';

const aRun = (overrides: Partial<NewEvalRun> = {}): NewEvalRun => ({
  id: randomUUID(),
  suite: `suite-${randomUUID().slice(0, 8)}`,
  config: 'current',
  model: 'scripted:fix.yaml',
  settings: { REASONING_EFFORT: 'high' },
  attemptsPerTask: 2,
  outDir: '/tmp/evals/suite--current',
  createdAt: new Date('2026-12-01T10:00:00Z'),
  ...overrides,
});

const anAttempt = (overrides: Partial<EvalAttemptRow> = {}): EvalAttemptRow => ({
  taskId: 'acme__strings-1',
  attempt: 1,
  resolved: true,
  exitStatus: 'submitted',
  costUsd: 0.125,
  modelCalls: 4,
  inputTokens: 3_000_000_000,
  outputTokens: 900,
  wallMs: 3120.5,
  patch: 'diff --git a/x b/x\n',
  trajPath: '/tmp/a.traj',
  error: null,
  ...overrides,
});

await describeEachDatabase('eval runs', openDatabase, (target) => {
  let database: Database;
  let runs: EvalRunRepository;

  beforeAll(async () => {
    database = await target.open();
    runs = new EvalRunRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('records a run and each attempt once, a resumed run going on in the same row', async () => {
    const run = aRun();
    const started = await runs.start(run);
    expect(started).toMatchObject({ id: run.id, status: 'running', finishedAt: null });
    expect(started.settings).toEqual({ REASONING_EFFORT: 'high' });
    const first = anAttempt();
    const second = anAttempt({ attempt: 2, resolved: false, trajPath: null, error: 'no apply' });
    expect(await runs.recordAttempts(run.id, [first])).toBe(1);
    // Resumed: the row is found again, attempts already recorded are not recorded twice.
    expect(await runs.start({ ...run, config: 'other' })).toMatchObject({ config: 'current' });
    expect(await runs.recordAttempts(run.id, [first, second])).toBe(1);
    expect(await runs.attemptsOf(run.id)).toEqual([first, second]);
    await runs.finish(run.id, new Date('2026-12-01T11:00:00Z'));
    expect(await runs.find(run.id)).toMatchObject({
      status: 'finished',
      finishedAt: new Date('2026-12-01T11:00:00Z'),
    });
  });

  it("finds the suite's latest finished run of a configuration", async () => {
    const suite = `suite-${randomUUID().slice(0, 8)}`;
    const older = await runs.start(aRun({ suite }));
    const newer = await runs.start(aRun({ suite }));
    const unfinished = await runs.start(aRun({ suite }));
    const otherConfig = await runs.start(aRun({ suite, config: 'cheap' }));
    expect(await runs.latestFinished(suite, 'current')).toBeNull();
    await runs.finish(older.id, new Date('2026-12-01T11:00:00Z'));
    await runs.finish(newer.id, new Date('2026-12-01T12:00:00Z'));
    await runs.finish(otherConfig.id, new Date('2026-12-01T13:00:00Z'));
    expect((await runs.latestFinished(suite, 'current'))?.id).toBe(newer.id);
    expect((await runs.latestFinished(suite, 'cheap'))?.id).toBe(otherConfig.id);
    expect(unfinished.status).toBe('running');
  });

  it('lists runs newest first with their totals', async () => {
    const suite = `suite-${randomUUID().slice(0, 8)}`;
    const empty = await runs.start(aRun({ suite, createdAt: new Date('2026-12-02T09:00:00Z') }));
    const graded = await runs.start(aRun({ suite, createdAt: new Date('2026-12-02T08:00:00Z') }));
    await runs.recordAttempts(graded.id, [
      anAttempt({ costUsd: 0.5 }),
      anAttempt({ attempt: 2, resolved: false, costUsd: 0.25 }),
      anAttempt({ taskId: 'acme__strings-2', costUsd: 1 }),
    ]);
    const listed = await runs.list({ suite, limit: 10 });
    expect(listed.map((r) => [r.id, r.tasks, r.attempts, r.resolvedAttempts, r.costUsd])).toEqual([
      [empty.id, 0, 0, 0, 0],
      [graded.id, 2, 3, 2, 1.75],
    ]);
    expect(await runs.list({ suite, limit: 1 })).toHaveLength(1);
  });
});
