import type { AttemptLedger, EvalAttempt } from '@caravel/evals';

/**
 * The line shown as an attempt finishes, with the run's counts so far:
 * `[3/8] acme__strings-7 #1 resolved (submitted, 5 calls, $0.0123, 4.2 s) | resolved 2 · unresolved 1 · left 5`
 */
export function attemptLine(
  taskId: string,
  attempt: EvalAttempt,
  ledger: AttemptLedger,
  total: number,
): string {
  const done = ledger.finished.length;
  const resolved = ledger.finished.filter((f) => f.result.resolved).length;
  const verdict = attempt.resolved ? 'resolved' : 'unresolved';
  const facts = [
    attempt.exitStatus,
    `${attempt.modelCalls} calls`,
    `$${attempt.costUsd.toFixed(4)}`,
    `${(attempt.wallMs / 1000).toFixed(1)} s`,
  ].join(', ');
  const why = attempt.error ? `: ${attempt.error.split('\n')[0]?.slice(0, 160)}` : '';
  return (
    `[${done}/${total}] ${taskId} #${attempt.attempt} ${verdict} (${facts})${why}` +
    ` | resolved ${resolved} · unresolved ${done - resolved} · left ${Math.max(0, total - done)}`
  );
}
