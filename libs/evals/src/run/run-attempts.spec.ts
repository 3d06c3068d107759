import type { EvalAttempt } from '../results/eval-run.js';
import { openLedger, type AttemptKey, type AttemptLedger } from './attempt-ledger.js';
import { runAttempts } from './run-attempts.js';

const identity = {
  runId: 'r1',
  suite: 'acme-tasks',
  config: 'current',
  model: 'scripted:good.json',
  createdAt: '2026-12-02T00:00:00Z',
};
const TASKS = ['a', 'b'];

function result(key: AttemptKey): EvalAttempt {
  return {
    attempt: key.attempt,
    resolved: key.taskId === 'a',
    exitStatus: 'submitted',
    costUsd: 0.01,
    modelCalls: 3,
    inputTokens: 10,
    outputTokens: 2,
    wallMs: 5,
    patch: `fix ${key.taskId}\n`,
  };
}

/** A disk that keeps every saved ledger (the last one is what a kill would leave). */
function disk() {
  const saves: AttemptLedger[] = [];
  return {
    saves,
    save: (ledger: AttemptLedger) => {
      saves.push(JSON.parse(JSON.stringify(ledger)) as AttemptLedger);
      return Promise.resolve();
    },
    last: () => saves.at(-1) as AttemptLedger,
  };
}

const label = (l: AttemptLedger) =>
  `started[${l.started.map((k) => `${k.taskId}${k.attempt}`).join()}] finished[${l.finished
    .map((f) => `${f.taskId}${f.result.attempt}`)
    .join()}]`;

describe('runAttempts', () => {
  it('keeps each attempt as started before it runs and as finished, with its record, after', async () => {
    const kept = disk();
    const ran: string[] = [];
    const final = await runAttempts({
      ledger: openLedger(undefined, identity).ledger,
      taskIds: TASKS,
      attempts: 1,
      concurrency: 1,
      attempt: (key) => {
        ran.push(`${key.taskId}${key.attempt}: ${label(kept.last())}`);
        return Promise.resolve(result(key));
      },
      save: kept.save,
    });
    expect(ran).toEqual(['a1: started[a1] finished[]', 'b1: started[b1] finished[a1]']);
    expect(kept.saves.map(label)).toEqual([
      'started[a1] finished[]',
      'started[] finished[a1]',
      'started[b1] finished[a1]',
      'started[] finished[a1,b1]',
    ]);
    expect(final).toEqual(kept.last());
  });

  it('after a kill mid-attempt, the next run re-runs that attempt only: none lost, none twice', async () => {
    const kept = disk();
    const kill = new AbortController();
    // First run: a1 finishes; b1 is in flight when the process is killed.
    const first = runAttempts({
      ledger: openLedger(undefined, identity).ledger,
      taskIds: TASKS,
      attempts: 2,
      concurrency: 1,
      attempt: (key) => {
        if (key.taskId === 'a') return Promise.resolve(result(key));
        kill.abort(new Error('SIGKILL'));
        return Promise.reject(new Error('killed mid-attempt'));
      },
      save: kept.save,
      signal: kill.signal,
    });
    await expect(first).rejects.toThrow('killed mid-attempt');
    expect(label(kept.last())).toBe('started[b1] finished[a1]');

    // The next run resumes from what was on disk.
    const resumed = openLedger(kept.last(), { ...identity, runId: 'r2' });
    expect(resumed.interrupted).toEqual([{ taskId: 'b', attempt: 1 }]);
    const ran: string[] = [];
    const final = await runAttempts({
      ledger: resumed.ledger,
      taskIds: TASKS,
      attempts: 2,
      concurrency: 2,
      attempt: (key) => {
        ran.push(`${key.taskId}${key.attempt}`);
        return Promise.resolve(result(key));
      },
      save: disk().save,
    });
    expect(ran).toEqual(['b1', 'a2', 'b2']);
    expect(label(final)).toBe('started[] finished[a1,b1,a2,b2]');
  });

  it('keeps every concurrent attempt once, whatever order they finish in, saves in order', async () => {
    const kept = disk();
    // Each attempt finishes when the test says so: a1 outlives b1, a2 and b2 (no timers).
    const finishers = new Map<string, () => void>();
    const seen: string[] = [];
    const running = runAttempts({
      ledger: openLedger(undefined, identity).ledger,
      taskIds: TASKS,
      attempts: 2,
      concurrency: 2,
      attempt: (key) =>
        new Promise((resolve) => {
          finishers.set(`${key.taskId}${key.attempt}`, () => resolve(result(key)));
        }),
      save: kept.save,
      onFinished: (key, _result, ledger) =>
        seen.push(`${key.taskId}${key.attempt}/${ledger.finished.length}`),
    });
    const finish = async (id: string) => {
      while (!finishers.has(id)) await new Promise((resolve) => setImmediate(resolve));
      finishers.get(id)?.();
      finishers.delete(id);
    };
    for (const id of ['b1', 'a2', 'b2', 'a1']) await finish(id);
    await running;
    expect(seen).toEqual(['b1/1', 'a2/2', 'b2/3', 'a1/4']);
    const counts = kept.saves.map((l) => l.finished.length);
    expect(counts).toEqual([...counts].sort((x, y) => x - y));
    expect(kept.last().started).toEqual([]);
    expect(
      kept
        .last()
        .finished.map((f) => `${f.taskId}${f.result.attempt}`)
        .sort(),
    ).toEqual(['a1', 'a2', 'b1', 'b2']);
  });
});
