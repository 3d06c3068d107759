import type {
  EvalAttemptRow,
  EvalProposalRepository,
  EvalProposalRow,
  EvalRunRepository,
  EvalRunRow,
  EvalRunSummaryRow,
  NewEvalProposal,
} from '@caravel/db';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import type { Caller } from '../auth/session.types.js';
import { EvalsService } from './evals.service.js';

/** The service reads only who the caller is. */
const admin = { kind: 'person', session: { login: 'hubot', role: 'admin' } } as unknown as Caller;

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
};
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
                { ...run, tasks: 2, attempts: 4, resolvedAttempts: 3, costUsd: 1 },
                { ...run, id: 'r0', tasks: 0, attempts: 0, resolvedAttempts: 0, costUsd: 0 },
              ]
            : ([] as EvalRunSummaryRow[]),
        ),
      find: (id) => Promise.resolve(id === RUN_ID ? run : null),
      attemptsOf: () =>
        Promise.resolve([attempt('a', 1, true), attempt('a', 2, false), attempt('b', 1, true)]),
    },
    'eval runs',
  );
  const proposals = strictMock<EvalProposalRepository>(
    {
      propose: (proposal) => {
        options.proposed?.push(proposal);
        return Promise.resolve({ ...proposal, status: 'pending' } as unknown as EvalProposalRow);
      },
    },
    'eval proposals',
  );
  return new EvalsService(runs, proposals);
}

describe('EvalsService', () => {
  it('lists runs with their resolve rate and interval, none for a run with no attempt', async () => {
    const [graded, empty] = await service().listRuns({ suite: 'strings', limit: 10 });
    expect(graded?.resolve.rate).toBe(0.75);
    expect(graded?.resolve.low).toBeLessThan(0.75);
    expect(graded?.resolve.high).toBeGreaterThan(0.75);
    expect(empty?.resolve).toMatchObject({ rate: null, low: 0, high: 1 });
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
