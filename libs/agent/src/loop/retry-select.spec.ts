import { describe, expect, it, jest } from '@jest/globals';
import { AppError } from '@caravel/errors';
import type { ModelStats } from './limit-guard.js';
import { runRetryLoop } from './retry-loop.js';
import {
  INVALID_SCORE,
  adjustScore,
  selectByChooser,
  selectByScore,
  type AttemptChooser,
  type AttemptResult,
  type RecordedAttempt,
} from './retry-select.js';

const stats = (apiCalls: number, instanceCost = 1): ModelStats => ({
  instanceCost,
  tokensSent: apiCalls * 100,
  tokensReceived: apiCalls * 10,
  apiCalls,
});

function attempt(
  index: number,
  exitStatus: string,
  submission: string | null,
  score: number | null,
  calls = 10,
): RecordedAttempt<string> {
  return { index, exitStatus, submission, score, stats: stats(calls), trajectory: `traj-${index}` };
}

describe('adjustScore', () => {
  it('penalises an attempt that did not end exactly submitted', () => {
    expect(adjustScore(8, 'submitted', 2)).toBe(8);
    expect(adjustScore(8, 'submitted (exit_cost)', 2)).toBe(6);
  });

  it('scores an attempt without a valid review as -100', () => {
    expect(adjustScore(null, 'submitted')).toBe(INVALID_SCORE);
    expect(adjustScore(Number.NaN, 'submitted')).toBe(INVALID_SCORE);
  });
});

describe('selectByScore', () => {
  it('picks the best score among attempts that submitted, keeping every attempt', () => {
    const selection = selectByScore([
      attempt(0, 'submitted', 'p0', 5),
      attempt(1, 'submitted', 'p1', 9),
      attempt(2, 'exit_cost', null, 10),
    ]);
    expect(selection).toMatchObject({
      winnerIndex: 1,
      outcome: 'scored',
      tie: false,
      exitStatus: 'submitted',
      submission: 'p1',
    });
    expect(selection.attempts.map((a) => a.index)).toEqual([0, 1, 2]);
    expect(selection.totalStats).toEqual({
      instanceCost: 3,
      tokensSent: 3000,
      tokensReceived: 300,
      apiCalls: 30,
    });
  });

  it('breaks a tie by fewer API calls, then by the earlier attempt', () => {
    const byCalls = selectByScore([
      attempt(0, 'submitted', 'p0', 7, 20),
      attempt(1, 'submitted', 'p1', 7, 12),
    ]);
    expect(byCalls).toMatchObject({ winnerIndex: 1, tie: true });
    const byOrder = selectByScore([
      attempt(0, 'submitted', 'p0', 7, 12),
      attempt(1, 'submitted', 'p1', 7, 12),
    ]);
    expect(byOrder).toMatchObject({ winnerIndex: 0, tie: true });
  });

  it('has no winner when every attempt failed to submit', () => {
    const selection = selectByScore([
      attempt(0, 'exit_format', null, 3),
      attempt(1, 'exit_context', '  ', 4),
    ]);
    expect(selection).toMatchObject({
      winnerIndex: null,
      outcome: 'all_failed',
      exitStatus: 'exit_context',
      submission: null,
    });
    expect(selection.attempts).toHaveLength(2);
  });
});

describe('selectByChooser', () => {
  it('asks the chooser among the clean submissions when there are at least two', async () => {
    const choose = jest.fn<AttemptChooser<string>>(() => Promise.resolve(1));
    const selection = await selectByChooser(
      [
        attempt(0, 'submitted', 'p0', null),
        attempt(1, 'submitted (exit_cost)', 'p1', null),
        attempt(2, 'submitted', 'p2', null),
      ],
      choose,
    );
    expect(choose.mock.calls[0]?.[0].map((c) => c.index)).toEqual([0, 2]);
    expect(selection).toMatchObject({ winnerIndex: 2, outcome: 'chosen', submission: 'p2' });
  });

  it('considers every submission when fewer than two are clean', async () => {
    const choose = jest.fn<AttemptChooser<string>>(() => Promise.resolve(0));
    await selectByChooser(
      [attempt(0, 'submitted (exit_cost)', 'p0', null), attempt(1, 'submitted', 'p1', null)],
      choose,
    );
    expect(choose.mock.calls[0]?.[0].map((c) => c.index)).toEqual([0, 1]);
  });

  it.each([[null], [7], [-1], [0.5]])(
    'falls back to the first candidate on the invalid choice %p',
    async (choice) => {
      const selection = await selectByChooser(
        [attempt(0, 'submitted', 'p0', null), attempt(1, 'submitted', 'p1', null)],
        () => Promise.resolve(choice),
      );
      expect(selection.winnerIndex).toBe(0);
    },
  );

  it('does not ask about a single candidate', async () => {
    const choose = jest.fn<AttemptChooser<string>>();
    const selection = await selectByChooser(
      [attempt(0, 'exit_cost', null, null), attempt(1, 'submitted', 'p1', null)],
      choose,
    );
    expect(selection).toMatchObject({ winnerIndex: 1, outcome: 'single_candidate' });
    expect(choose).not.toHaveBeenCalled();
  });

  it('has no winner and asks nothing when all attempts failed', async () => {
    const choose = jest.fn<AttemptChooser<string>>();
    const selection = await selectByChooser([attempt(0, 'exit_cost', null, null)], choose);
    expect(selection).toMatchObject({
      winnerIndex: null,
      outcome: 'all_failed',
      exitStatus: 'exit_cost',
    });
    expect(choose).not.toHaveBeenCalled();
  });
});

describe('runRetryLoop', () => {
  const result = (
    exitStatus: string,
    submission: string | null,
    cost: number,
  ): AttemptResult<string> => ({
    exitStatus,
    submission,
    stats: stats(5, cost),
    trajectory: 't',
  });

  it('caps each attempt at the remaining budget and stops when too little is left', async () => {
    const runAttempt = jest.fn((_index: number, _budget: number | null) =>
      Promise.resolve(result('submitted', 'p', 2)),
    );
    const selection = await runRetryLoop(
      { maxAttempts: 10, budgetUsd: 5, minBudgetForNewAttempt: 1.5 },
      { runAttempt, strategy: { kind: 'chooser', choose: () => Promise.resolve(0) } },
    );
    expect(runAttempt.mock.calls.map((c) => c[1])).toEqual([5, 3]);
    expect(selection.attempts).toHaveLength(2);
    expect(selection.totalStats.instanceCost).toBe(4);
  });

  it('stops early once a clean submission reaches the accept score', async () => {
    const scores = [4, 9, 10];
    const runAttempt = jest.fn((index: number, _budget: number | null) =>
      Promise.resolve(result('submitted', `p${index}`, 1)),
    );
    const selection = await runRetryLoop(
      { maxAttempts: 3, budgetUsd: 0, minBudgetForNewAttempt: 0, acceptScore: 8 },
      {
        runAttempt,
        strategy: { kind: 'score', score: (a) => Promise.resolve(scores[a.index] ?? null) },
      },
    );
    expect(runAttempt).toHaveBeenCalledTimes(2);
    expect(runAttempt.mock.calls[0]?.[1]).toBeNull();
    expect(selection).toMatchObject({ winnerIndex: 1, submission: 'p1' });
  });

  it('applies the failure penalty while scoring', async () => {
    const outcomes = [result('submitted (exit_cost)', 'p0', 1), result('submitted', 'p1', 1)];
    const selection = await runRetryLoop(
      { maxAttempts: 2, budgetUsd: 0, minBudgetForNewAttempt: 0 },
      {
        runAttempt: (index) => Promise.resolve(outcomes[index] ?? result('exit_error', null, 0)),
        strategy: {
          kind: 'score',
          score: (a) => Promise.resolve(a.index === 0 ? 9 : 8),
          failurePenalty: 2,
        },
      },
    );
    expect(selection.attempts.map((a) => a.score)).toEqual([7, 8]);
    expect(selection.winnerIndex).toBe(1);
  });

  it('rejects a loop without attempts', async () => {
    await expect(
      runRetryLoop(
        { maxAttempts: 0, budgetUsd: 0, minBudgetForNewAttempt: 0 },
        {
          runAttempt: jest.fn<() => Promise<AttemptResult<string>>>(),
          strategy: { kind: 'chooser', choose: jest.fn<AttemptChooser<string>>() },
        },
      ),
    ).rejects.toBeInstanceOf(AppError);
  });
});
