import type {
  EvalReviewCaseRepository,
  EvalRunRepository,
  EvalRunSummaryRow,
  EvalScheduleChange,
  EvalScheduleRepository,
  EvalScheduleRow,
  NewEvalSchedule,
} from '@caravel/db';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { EvalSchedulesService } from './evals-schedules.service.js';
import { personCaller } from '../testing/callers.js';

const admin = personCaller('hubot', 'admin');
const ID = '3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e';

const schedule = (overrides: Partial<EvalScheduleRow> = {}): EvalScheduleRow => ({
  id: ID,
  name: 'nightly',
  kind: 'harbor',
  source: '/srv/evals/tasks',
  config: 'current',
  model: 'anthropic:claude-sonnet-4-5',
  settings: {},
  attempts: 3,
  hour: 2,
  state: 'active',
  createdBy: 'hubot',
  createdAt: new Date('2026-12-01T09:00:00Z'),
  updatedAt: new Date('2026-12-01T09:00:00Z'),
  failedSlot: null,
  lastError: null,
  ...overrides,
});

const night = (day: number, resolved: number): EvalRunSummaryRow => ({
  id: `run-${day}`,
  suite: 'tasks',
  config: 'current',
  model: 'anthropic:claude-sonnet-4-5',
  settings: {},
  attemptsPerTask: 3,
  status: 'finished',
  outDir: null,
  createdAt: new Date(Date.UTC(2026, 11, day, 2)),
  finishedAt: new Date(Date.UTC(2026, 11, day, 5)),
  kind: 'harbor',
  scheduleId: ID,
  scheduleSlot: new Date(Date.UTC(2026, 11, day, 2)),
  tasks: 10,
  attempts: 30,
  resolvedAttempts: resolved,
  cases: 0,
  expected: 0,
  found: 0,
  matched: 0,
  costUsd: 12,
});

function service(state: { registered?: NewEvalSchedule[]; changes?: EvalScheduleChange[] } = {}) {
  const rows = new Map([
    [ID, schedule()],
    ['review-id', schedule({ kind: 'review', attempts: 1 })],
  ]);
  const schedules = strictMock<EvalScheduleRepository>(
    {
      register: (s) => {
        state.registered?.push(s);
        return Promise.resolve(s.name === 'taken' ? null : schedule({ ...s, id: s.id }));
      },
      find: (id) => Promise.resolve(rows.get(id) ?? null),
      change: (id, change) => {
        state.changes?.push(change);
        return Promise.resolve({
          ...(rows.get(id) as EvalScheduleRow),
          ...change,
        } as EvalScheduleRow);
      },
    },
    'eval schedules',
  );
  const runs = strictMock<EvalRunRepository>(
    {
      list: (query) => Promise.resolve(query.scheduleId === ID ? [night(2, 24), night(1, 27)] : []),
    },
    'eval runs',
  );
  const reviewCases = strictMock<EvalReviewCaseRepository>({}, 'eval review cases');
  return new EvalSchedulesService(schedules, runs, reviewCases);
}

const body = (input: Record<string, unknown>) =>
  parseInput(ROUTES.registerEvalSchedule.body, input, 'scheduled suite');

describe('EvalSchedulesService', () => {
  it('registers a validated suite by the admin who made it, refusing a taken name', async () => {
    const registered: NewEvalSchedule[] = [];
    const input = body({
      name: 'nightly',
      kind: 'harbor',
      source: '/srv/evals/tasks',
      config: 'current',
      model: 'anthropic:claude-sonnet-4-5',
      attempts: 3,
      hour: 2,
    });
    await service({ registered }).register(admin, input);
    expect(registered).toEqual([
      expect.objectContaining({ name: 'nightly', settings: {}, hour: 2, createdBy: 'hubot' }),
    ]);
    const taken = await service()
      .register(admin, { ...input, name: 'taken' })
      .catch((error: unknown) => error);
    expect(isAppError(taken) && taken.code).toBe('CONFLICT');
  });

  it('refuses a relative path, a Harbor suite by URL, a review set run twice and a bad hour', () => {
    const base = { name: 'n', config: 'c', model: 'm', hour: 2 };
    expect(() => body({ ...base, kind: 'harbor', source: 'tasks' })).toThrow(
      /source: an absolute path, or an http\(s\) URL/,
    );
    expect(() => body({ ...base, kind: 'harbor', source: 'https://x/tasks' })).toThrow(
      /source: a Harbor suite is a folder/,
    );
    expect(() =>
      body({ ...base, kind: 'review', source: 'https://x/set.json', attempts: 2 }),
    ).toThrow(/attempts: a review set is reviewed once a night/);
    expect(() => body({ ...base, kind: 'harbor', source: '/t', hour: 24 })).toThrow(/hour/);
    expect(body({ ...base, kind: 'review', source: 'https://x/set.json' }).attempts).toBe(1);
  });

  it('changes a schedule, refusing an unknown one and attempts on a review set', async () => {
    const changes: EvalScheduleChange[] = [];
    expect(await service({ changes }).change(ID, { state: 'paused' })).toMatchObject({
      state: 'paused',
    });
    expect(changes).toEqual([{ state: 'paused' }]);
    const missing = await service()
      .change('5a0c3e1e-0000-4000-8000-000000000000', { hour: 3 })
      .catch((error: unknown) => error);
    expect(isAppError(missing) && missing.code).toBe('NOT_FOUND');
    const review = await service()
      .change('review-id', { attempts: 3 })
      .catch((error: unknown) => error);
    expect(isAppError(review) && review.code).toBe('BAD_REQUEST');
    expect(() => parseInput(ROUTES.changeEvalSchedule.body, {}, 'change')).toThrow(
      /nothing to change/,
    );
  });

  it("lists a schedule's nights, the newest first, with resolve rates and intervals", async () => {
    const { schedule: found, runs } = await service().history(ID, 30);
    expect(found.name).toBe('nightly');
    expect(runs.map((r) => [r.id, r.resolve.rate])).toEqual([
      ['run-2', 0.8],
      ['run-1', 0.9],
    ]);
    expect(runs[0]?.resolve.low).toBeLessThan(0.8);
    expect(runs[0]?.review).toBeNull();
  });
});
