import type { TriggerKind } from '@caravel/contracts';
import type { RunStatus } from '@caravel/db';

/**
 * What a trigger does next, by the status of the run it created (or found again, when it is a
 * redelivery): `claim` the thread for the run (and join its active run when another holds it),
 * `join` the active run with its text, or nothing.
 */
export type TriggerStep = 'claim' | 'join' | 'none';

export function triggerStep(status: RunStatus, kind: TriggerKind): TriggerStep {
  switch (status) {
    case 'queued':
      // A person's command never starts a run: it waits for the thread's next model call.
      return kind === 'command' ? 'join' : 'claim';
    case 'merged':
      // It joined the active run before: joining again queues its text once, as before.
      return 'join';
    case 'waiting':
    case 'running':
    case 'completed':
    case 'failed':
    case 'interrupted':
      return 'none'; // redelivered: its run waits for a slot or went ahead
  }
}
