import type { RunStatus } from '@caravel/db';

/**
 * What a stop does to a thread's active run: `cancel` one that no runner works on yet (it ends
 * `interrupted` without starting), `interrupt` one a runner works on (through the interrupt path:
 * it stops at its last checkpoint), or `nothing` (no active run, or a stop already on its way).
 */
export type StopStep = 'nothing' | 'cancel' | 'interrupt';

export interface StopFacts {
  /** The status of the run holding the thread; null when the thread is idle (or unknown). */
  activeStatus: RunStatus | null;
  /** Another stop of the thread waits for its run to end: this one adds nothing. */
  alreadyStopping: boolean;
  /** A runner holds the thread's lease: a `queued` run has been picked up. */
  runnerHoldsThread: boolean;
}

/** Decides what a stop does; the same facts always give the same step (a repeat is a no-op). */
export function stopStep(facts: StopFacts): StopStep {
  if (facts.activeStatus === null || facts.alreadyStopping) return 'nothing';
  switch (facts.activeStatus) {
    case 'waiting':
      return 'cancel';
    case 'queued':
      return facts.runnerHoldsThread ? 'interrupt' : 'cancel';
    case 'running':
      return 'interrupt';
    case 'merged':
    case 'completed':
    case 'failed':
    case 'interrupted':
      return 'nothing';
  }
}
