import type { EnvelopeOf, StartRunV1 } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { isBrokerStopping } from '@caravel/sandbox';
import type { StreamEnding } from './conclude-stream.js';

/** The `stopping` of a run that no shutdown can reach (a start run outside a consumer). */
export const STAYS: AbortSignal = new AbortController().signal;

/**
 * What a run's start command fails with when the run is left for another runner: this runner is
 * shutting down (a rolling deploy's SIGTERM, `caravel start` stopped), or the sandbox broker it
 * was using is. The run stopped at a safe point with its steps published and its checkpoint
 * written, and is not ended. Retryable DEPENDENCY_UNAVAILABLE: the bus hands the command back
 * (an outage: it does not use up the command's deliveries), and the runner that takes it resumes
 * the run from its checkpoint.
 */
export function handedBack(command: EnvelopeOf<typeof StartRunV1>): AppError {
  const { runId } = command.data;
  return new AppError(
    'DEPENDENCY_UNAVAILABLE',
    `run ${runId} is handed back: this runner (or its sandbox broker) is shutting down; the run stopped at a safe point, keeps its steps and checkpoint, and the next runner resumes it`,
    { retryable: true, details: { reason: 'shutting_down', runId } },
  );
}

/**
 * Whether a run's ending is a shutdown's, to hand back rather than end: stopped while no new
 * message interrupted it (so its runner is stopping), or failed because its sandbox broker is.
 */
export function handsBack(ending: StreamEnding, interrupt: AbortSignal): boolean {
  if (ending.kind === 'interrupted') return !interrupt.aborted;
  return ending.kind === 'failed' && isBrokerStopping(ending.error);
}
