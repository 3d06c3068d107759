import { fairOrder, type QueueSnapshot, type RunQueueRow } from '@caravel/db';

export { fairOrder };

/** Concurrency limits the queue admits within. */
export interface AdmissionLimits {
  maxActive: number;
  maxActivePerRepository: number;
}

/**
 * The waiting runs to admit now, in fair order: as many as the platform limit leaves room for,
 * skipping (not dropping) runs whose repository is at its own limit.
 */
export function admissible(snapshot: QueueSnapshot, limits: AdmissionLimits): RunQueueRow[] {
  let room = limits.maxActive - snapshot.active.length;
  const perRepository = new Map<string, number>();
  for (const run of snapshot.active)
    perRepository.set(run.repositoryKey, (perRepository.get(run.repositoryKey) ?? 0) + 1);
  const admitted: RunQueueRow[] = [];
  for (const run of fairOrder(snapshot)) {
    if (room <= 0) break;
    const active = perRepository.get(run.repositoryKey) ?? 0;
    if (active >= limits.maxActivePerRepository) continue;
    perRepository.set(run.repositoryKey, active + 1);
    admitted.push(run);
    room -= 1;
  }
  return admitted;
}

/** 1-based place of a waiting run in the fair order (0 when it is not waiting). */
export function queuePosition(snapshot: QueueSnapshot, runId: string): number {
  return fairOrder(snapshot).findIndex((run) => run.runId === runId) + 1;
}
