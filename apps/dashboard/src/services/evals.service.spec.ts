import type {
  EvalAttemptRow,
  EvalProposalRepository,
  EvalReviewCaseRepository,
  EvalReviewCaseRow,
  EvalRunRepository,
  EvalRunRow,
  EvalRunSummaryRow,
  NewEvalProposal,
} from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { EvalsService } from './evals.service.js';
import { personCaller } from '../testing/callers.js';

const admin = personCaller('hubot', 'admin');

const RUN_ID = '0b6f1a52-6f0e-4a43-9d7e-1f1a2b3c4d5e';
const run: EvalRunRow = {
  id: RUN_ID,
  suite: 'strings',
  config: 'current',
  model: 'scripted:fix.yaml',
  settings: {},
  attemptsPerTask: 2,
  status: 'finished',
  outDir: '/evals/strings--current',
  createdAt: new Date('2026-12-02T09:00:00Z'),
  finishedAt: new Date('2026-12-02T10:00:00Z'),
  kind: 'harbor',
  scheduleId: null,
  scheduleSlot: null,
};
const REVIEW_ID = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const reviewRun: EvalRunRow = { ...run, id: REVIEW_ID, suite: 'sample', kind: 'review' };
const noCases = { cases: 0, expected: 0, found: 0, matched: 0 };
const aCase = (
  caseId: string,
  matched: number,
  error: string | null = null,
): EvalReviewCaseRow => ({
  caseId,
  expected: 2,
  found: 2,
  matched,
  precision: matched / 2,
  recall: matched / 2,
  f1: matched / 2,
  modelCalls: 6,
  inputTokens: 100,
  outputTokens: 10,
  costUsd: 0.5,
  wallMs: 2000,
  error,
  detail: { id: caseId },
});
const cases = [aCase('c1', 2), aCase('c2', 1), aCase('c3', 0, 'no diff')];
const attempt = (taskId: string, n: number, resolved: boolean): EvalAttemptRow => ({
  taskId,
  attempt: n,
  resolved,
  exitStatus: resolved ? 'submitted' : 'exit_cost',
  costUsd: 0.25,
  modelCalls: 4,
  inputTokens: 100,
  outputTokens: 10,
  wallMs: 1000,
  patch: '',
  trajPath: null,
  error: null,
});

function service(options: { proposed?: NewEvalProposal[] } = {}): EvalsService {
  const runs = strictMock<EvalRunRepository>(
    {
      list: (query) =>
        Promise.resolve(
          query.suite === 'strings'
            ? [
                { ...run, tasks: 2, attempts: 4, resolvedAttempts: 3, costUsd: 1, ...noCases },
                {
                  ...run,
                  id: 'r0',
                  tasks: 0,
                  attempts: 0,
                  resolvedAttempts: 0,
                  costUsd: 0,
                  ...noCases,
                },
                {
                  ...reviewRun,
                  tasks: 0,
                  attempts: 0,
                  resolvedAttempts: 0,
                  costUsd: 1,
                  ...noCases,
                  cases: 2,
                  expected: 4,
                  found: 4,
                  matched: 3,
                },
              ]
            : ([] as EvalRunSummaryRow[]),
        ),
      find: (id) => Promise.resolve(id === RUN_ID ? run : id === REVIEW_ID ? reviewRun : null),
      attemptsOf: (id) =>
        Promise.resolve(
          id === RUN_ID
            ? [attempt('a', 1, true), attempt('a', 2, false), attempt('b', 1, true)]
            : [],
        ),
    },
    'eval runs',
  );
  const reviewCases = strictMock<EvalReviewCaseRepository>(
    {
      countsOf: (ids) =>
        Promise.resolve(new Map(ids.map((id) => [id, id === REVIEW_ID ? cases.slice(0, 2) : []]))),
      casesOf: (id) => Promise.resolve(id === REVIEW_ID ? cases : []),
    },
    'eval review cases',
  );
  const proposals = strictMock<EvalProposalRepository>(
    {
      propose: (proposal) => {
        options.proposed?.push(proposal);
        const { style, note, settings, ...fields } = proposal;
        expect(style).toBeUndefined();
        return Promise.resolve(
          factory.evalProposal({ ...fields, settings: { ...settings }, note: note ?? null }),
        );
      },
    },
    'eval proposals',
  );
  return new EvalsService(runs, proposals, reviewCases);
}

describe('EvalsService', () => {
  it('lists runs with their resolve rate and interval, none for a run with no attempt', async () => {
    const [graded, empty] = await service().listRuns({ suite: 'strings', limit: 10 });
    expect(graded?.resolve.rate).toBe(0.75);
    expect(graded?.resolve.low).toBeLessThan(0.75);
    expect(graded?.resolve.high).toBeGreaterThan(0.75);
    expect(empty?.resolve).toMatchObject({ rate: null, low: 0, high: 1 });
    expect(graded?.review).toBeNull();
  });

  it("gives a reviewer run its precision, recall and F1 with the F1's interval", async () => {
    const [, , review] = await service().listRuns({ suite: 'strings', limit: 10 });
    expect(review?.review).toMatchObject({ cases: 2, precision: 0.75, recall: 0.75 });
    expect(review?.review?.f1.value).toBeCloseTo(0.75);
    expect(review?.review?.f1.low).toBeLessThanOrEqual(0.75);
    expect(review?.review?.f1.high).toBe(1);
    const detail = await service().run(REVIEW_ID);
    expect(detail.taskResults).toEqual([]);
    expect(detail.reviewCases.map((c) => [c.caseId, c.matched, c.error])).toEqual([
      ['c1', 2, null],
      ['c2', 1, null],
      ['c3', 0, 'no diff'],
    ]);
    expect(detail.reviewCases[0]).not.toHaveProperty('detail');
    // The failed case is listed but not scored.
    expect(detail).toMatchObject({ cases: 2, expected: 4, matched: 3, costUsd: 1 });
    expect(detail.review?.f1.value).toBeCloseTo(0.75);
  });

  it("sums a run's attempts per task, and refuses an unknown run", async () => {
    const detail = await service().run(RUN_ID);
    expect(detail).toMatchObject({ tasks: 2, attempts: 3, resolvedAttempts: 2, costUsd: 0.75 });
    expect(detail.taskResults).toEqual([
      {
        taskId: 'a',
        attempts: 2,
        resolved: 1,
        costUsd: 0.5,
        modelCalls: 8,
        exitStatuses: ['submitted', 'exit_cost'],
      },
      {
        taskId: 'b',
        attempts: 1,
        resolved: 1,
        costUsd: 0.25,
        modelCalls: 4,
        exitStatuses: ['submitted'],
      },
    ]);
    const missing = await service()
      .run('5a0c3e1e-0000-4000-8000-000000000000')
      .catch((error: unknown) => error);
    expect(isAppError(missing) && missing.code).toBe('NOT_FOUND');
  });

  it('records a proposal by the admin who made it, refusing a malformed one', async () => {
    const proposed: NewEvalProposal[] = [];
    const body = parseInput(
      ROUTES.proposeEvalChange.body,
      { suite: 'strings', config: 'cheap', model: 'openai:gpt-5-mini', note: 'cheaper' },
      'proposal',
    );
    await service({ proposed }).propose(admin, body);
    expect(proposed).toEqual([
      expect.objectContaining({
        suite: 'strings',
        config: 'cheap',
        model: 'openai:gpt-5-mini',
        settings: {},
        note: 'cheaper',
        proposedBy: 'hubot',
      }),
    ]);
    const bad = () =>
      parseInput(
        ROUTES.proposeEvalChange.body,
        { suite: '../etc', config: 'c', model: 'm', settings: { 'not-env': 'x' } },
        'proposal',
      );
    expect(bad).toThrow(/suite: letters, digits.*; settings.not-env: Invalid key/);
  });
});
