import type { EvalAttempt } from '../results/eval-run.js';
import {
  attemptLedgerSchema,
  evalRunOfLedger,
  openLedger,
  pendingAttempts,
  withFinished,
  withStarted,
  type AttemptLedger,
} from './attempt-ledger.js';

const identity = {
  runId: 'r1',
  suite: 'acme-tasks',
  config: 'current',
  model: 'scripted:good.json',
  createdAt: '2026-12-02T00:00:00Z',
};

function attempt(n: number, resolved = true): EvalAttempt {
  return {
    attempt: n,
    resolved,
    exitStatus: 'submitted',
    costUsd: 0,
    modelCalls: 3,
    inputTokens: 10,
    outputTokens: 2,
    wallMs: 100,
    patch: 'diff\n',
  };
}

const TASKS = ['a__x-1', 'a__x-2'];

describe('the attempts ledger', () => {
  it('plans every attempt of a new run, attempt by attempt across the suite', () => {
    const { ledger, interrupted, resumed } = openLedger(undefined, identity);
    expect(resumed).toBe(false);
    expect(interrupted).toEqual([]);
    expect(pendingAttempts(ledger, TASKS, 2)).toEqual([
      { taskId: 'a__x-1', attempt: 1 },
      { taskId: 'a__x-2', attempt: 1 },
      { taskId: 'a__x-1', attempt: 2 },
      { taskId: 'a__x-2', attempt: 2 },
    ]);
  });

  it('after a kill, re-runs the attempt that was in flight and never a finished one', () => {
    // The state a kill leaves: two attempts started, one of them finished and written.
    let ledger = openLedger(undefined, identity).ledger;
    ledger = withStarted(ledger, { taskId: 'a__x-1', attempt: 1 });
    ledger = withStarted(ledger, { taskId: 'a__x-2', attempt: 1 });
    ledger = withFinished(ledger, 'a__x-1', attempt(1));
    const onDisk = attemptLedgerSchema.parse(JSON.parse(JSON.stringify(ledger)));

    const resumed = openLedger(onDisk, { ...identity, runId: 'other', createdAt: 'later' });
    expect(resumed.resumed).toBe(true);
    expect(resumed.interrupted).toEqual([{ taskId: 'a__x-2', attempt: 1 }]);
    expect(resumed.ledger.started).toEqual([]);
    // The run keeps its identity: the record is one run, however many times it resumed.
    expect(resumed.ledger.runId).toBe('r1');
    expect(pendingAttempts(resumed.ledger, TASKS, 2)).toEqual([
      { taskId: 'a__x-2', attempt: 1 },
      { taskId: 'a__x-1', attempt: 2 },
      { taskId: 'a__x-2', attempt: 2 },
    ]);
  });

  it('refuses to record an attempt twice', () => {
    const ledger = withFinished(openLedger(undefined, identity).ledger, 'a__x-1', attempt(1));
    expect(() => withFinished(ledger, 'a__x-1', attempt(1, false))).toThrow(/already recorded/);
  });

  it.each(['suite', 'config', 'model'] as const)(
    'refuses to resume a ledger of another %s',
    (field) => {
      const ledger = openLedger(undefined, identity).ledger;
      let thrown: unknown;
      try {
        openLedger(ledger, { ...identity, [field]: 'other' });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(field) });
    },
  );

  it('folds the finished attempts into a run record in the suite order, attempts in order', () => {
    let ledger: AttemptLedger = openLedger(undefined, identity).ledger;
    ledger = withFinished(ledger, 'a__x-2', attempt(2, false));
    ledger = withFinished(ledger, 'a__x-2', attempt(1));
    ledger = withStarted(ledger, { taskId: 'a__x-1', attempt: 1 });
    const run = evalRunOfLedger(ledger, TASKS);
    expect(run).toMatchObject({ runId: 'r1', suite: 'acme-tasks', config: 'current' });
    expect(run.tasks).toEqual([{ taskId: 'a__x-2', attempts: [attempt(1), attempt(2, false)] }]);
  });
});
