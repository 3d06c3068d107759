import { describe, expect, it } from '@jest/globals';
import { Validator } from '@langchain/core/utils/json_schema';
import { AppError } from '@caravel/errors';
import { selectByScore, type RecordedAttempt } from '../loop/retry-select.js';
import { trajFromSelection } from './traj-attempts.js';
import { trajJsonSchema } from './traj-json-schema.js';
import { buildTrajectory } from './trajectory-builder.js';
import type { Traj } from './traj.schema.js';

function attemptTraj(
  action: string,
  exitStatus: 'submitted' | 'exit_format',
  submission: string | null,
): Traj {
  return buildTrajectory(
    [
      { kind: 'model_response', query: [], response: action, thought: '', action },
      { kind: 'observation', observation: 'ok', executionTime: 0.1 },
      { kind: 'exit', exitStatus, submission },
    ],
    { environment: 'local', replayConfig: null, agent: 'main' },
  );
}

function recorded(index: number, traj: Traj, score: number): RecordedAttempt<Traj> {
  return {
    index,
    exitStatus: traj.info.exit_status ?? 'exit_error',
    submission: traj.info.submission,
    score,
    stats: { instanceCost: 0.5, tokensSent: 100, tokensReceived: 10, apiCalls: 2 },
    trajectory: traj,
  };
}

describe('trajFromSelection', () => {
  it('puts the winner on top with the totals and keeps every attempt', () => {
    const selection = selectByScore([
      recorded(0, attemptTraj('a', 'submitted', 'p0'), 3),
      recorded(1, attemptTraj('b', 'submitted', 'p1'), 8),
    ]);
    const traj = trajFromSelection(selection);
    expect(traj.trajectory[0]?.action).toBe('b');
    expect(traj.info).toMatchObject({
      best_attempt_idx: 1,
      exit_status: 'submitted',
      submission: 'p1',
      model_stats: { instance_cost: 1, api_calls: 4 },
    });
    expect(traj.attempts?.map((a) => a.trajectory[0]?.action)).toEqual(['a', 'b']);
    expect(
      new Validator(trajJsonSchema(), '7').validate(JSON.parse(JSON.stringify(traj))).valid,
    ).toBe(true);
  });

  it('puts the last attempt on top, without a submission, when all failed', () => {
    const traj = trajFromSelection(
      selectByScore([
        recorded(0, attemptTraj('a', 'exit_format', null), 1),
        recorded(1, attemptTraj('b', 'exit_format', null), 2),
      ]),
    );
    expect(traj.trajectory[0]?.action).toBe('b');
    expect(traj.info.submission).toBeNull();
    expect(traj.info).not.toHaveProperty('best_attempt_idx');
  });

  it('refuses a selection without attempts', () => {
    expect(() => trajFromSelection(selectByScore<Traj>([]))).toThrow(AppError);
  });
});
