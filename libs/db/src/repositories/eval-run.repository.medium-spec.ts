import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { EvalProposalRepository } from './eval-proposal.repository.js';
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
    expect(await runs.latestFinished(suite, { config: 'current' })).toBeNull();
    await runs.finish(older.id, new Date('2026-12-01T11:00:00Z'));
    await runs.finish(newer.id, new Date('2026-12-01T12:00:00Z'));
    await runs.finish(otherConfig.id, new Date('2026-12-01T13:00:00Z'));
    expect((await runs.latestFinished(suite, { config: 'current' }))?.id).toBe(newer.id);
    expect((await runs.latestFinished(suite, { config: 'cheap' }))?.id).toBe(otherConfig.id);
    // A reviewer run of a set with the suite's name is not one of its runs.
    const review = await runs.start(aRun({ suite, kind: 'review' }));
    await runs.finish(review.id, new Date('2026-12-01T14:00:00Z'));
    expect((await runs.latestFinished(suite))?.id).toBe(otherConfig.id);
    expect((await runs.latestFinished(suite, { kind: 'review' }))?.id).toBe(review.id);
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

  it('keeps proposals pending until decided once, the accepted one the current configuration', async () => {
    const proposals = new EvalProposalRepository(database.db);
    const suite = `suite-${randomUUID().slice(0, 8)}`;
    const baseline = await runs.start(aRun({ suite }));
    const candidate = await runs.start(aRun({ suite, config: 'cheap' }));
    await runs.finish(baseline.id, new Date('2026-12-02T10:00:00Z'));
    await runs.finish(candidate.id, new Date('2026-12-02T11:00:00Z'));
    const proposed = await proposals.propose({
      id: randomUUID(),
      suite,
      config: 'cheap',
      model: 'openai:gpt-5-mini',
      settings: { REASONING_EFFORT: 'low' },
      note: 'a cheaper model',
      proposedBy: 'hubot',
      createdAt: new Date('2026-12-02T09:00:00Z'),
    });
    expect(proposed).toMatchObject({ status: 'pending', decidedAt: null, note: 'a cheaper model' });
    expect((await proposals.pendingFor(suite, 'cheap'))?.id).toBe(proposed.id);
    expect(await proposals.latestAccepted(suite)).toBeNull();
    // Until the proposal is decided its run is any run; after, it is the proposal's, not a plain one.
    expect((await runs.latestFinished(suite, { notProposed: true }))?.id).toBe(candidate.id);
    const decision = {
      status: 'accepted' as const,
      baselineRunId: baseline.id,
      candidateRunId: candidate.id,
      maxDrop: 0.05,
      alpha: 0.05,
      delta: -0.1,
      pValue: 0.5,
      reason: 'down 10.0 points but not significant (p = 0.50)',
      numbers: { lost: ['t-1'], gained: [] },
    };
    const decided = await proposals.decide(proposed.id, decision);
    expect(decided).toMatchObject({ ...decision, settings: { REASONING_EFFORT: 'low' } });
    expect(decided?.decidedAt).toBeInstanceOf(Date);
    expect(await proposals.decide(proposed.id, { ...decision, status: 'refused' })).toBeNull();
    expect(await proposals.pendingFor(suite, 'cheap')).toBeNull();
    expect((await proposals.latestAccepted(suite))?.config).toBe('cheap');
    expect((await runs.latestFinished(suite, { notProposed: true }))?.id).toBe(baseline.id);
    expect(
      (await proposals.list({ suite, status: 'accepted', limit: 5 })).map((p) => p.id),
    ).toEqual([proposed.id]);
    expect(await proposals.list({ suite, status: 'refused', limit: 5 })).toEqual([]);
  });
});
