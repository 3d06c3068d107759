import { describe, expect, it } from '@jest/globals';
import { evalRunSchema, type EvalAttempt } from './eval-run.js';
import { evalRunOfRecords, recordedAttemptsOf } from './eval-run-records.js';

const attempt = (n: number, overrides: Partial<EvalAttempt> = {}): EvalAttempt => ({
  attempt: n,
  resolved: n === 1,
  exitStatus: 'submitted',
  costUsd: 0.5,
  modelCalls: 3,
  inputTokens: 1000,
  outputTokens: 20,
  wallMs: 1200,
  patch: 'diff',
  ...overrides,
});

describe('eval run records', () => {
  it('turns finished attempts into rows and rows back into the same run record', () => {
    const finished = [
      { taskId: 'b-task', result: attempt(2, { error: 'patch does not apply' }) },
      { taskId: 'a-task', result: attempt(1, { trajPath: '/runs/a-1.traj' }) },
      { taskId: 'b-task', result: attempt(1) },
    ];
    const rows = recordedAttemptsOf(finished);
    expect(rows[0]).toMatchObject({
      taskId: 'b-task',
      trajPath: null,
      error: 'patch does not apply',
    });
    expect(rows[1]).toMatchObject({ taskId: 'a-task', trajPath: '/runs/a-1.traj', error: null });
    const run = evalRunOfRecords(
      {
        id: 'r1',
        suite: 'tasks',
        config: 'current',
        model: 'scripted:x',
        createdAt: new Date('2026-12-01T10:00:00Z'),
      },
      rows,
    );
    expect(evalRunSchema.parse(run)).toEqual(run);
    expect(run).toEqual({
      runId: 'r1',
      suite: 'tasks',
      config: 'current',
      model: 'scripted:x',
      createdAt: '2026-12-01T10:00:00.000Z',
      tasks: [
        { taskId: 'a-task', attempts: [attempt(1, { trajPath: '/runs/a-1.traj' })] },
        { taskId: 'b-task', attempts: [attempt(1), attempt(2, { error: 'patch does not apply' })] },
      ],
    });
  });
});
