import { RunQueueRepository } from '@caravel/db';
import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import type { queuePositionResponse } from '../api/queue-schemas.js';

export type QueuePositionView = z.output<typeof queuePositionResponse>;

/**
 * Where runs wait in the dispatch queue: each waiting run's place in the order fair share will
 * admit them (the order dispatch serves, read from the same queue), overall and in its
 * repository, and how long it has waited.
 */
@Injectable()
export class QueuePositionsService {
  constructor(@Inject(RunQueueRepository) private readonly queue: RunQueueRepository) {}

  /** Every waiting run, first to be admitted first. */
  async waiting(now = new Date()): Promise<QueuePositionView[]> {
    const positions = await this.queue.positions();
    const perRepository = new Map<string, number>();
    for (const { run } of positions)
      perRepository.set(run.repositoryKey, (perRepository.get(run.repositoryKey) ?? 0) + 1);
    return positions.map(({ run, position, repositoryPosition }) => ({
      runId: run.runId,
      threadId: run.threadId,
      repository: run.repositoryKey,
      person: run.userKey,
      position,
      repositoryPosition,
      waiting: positions.length,
      repositoryWaiting: perRepository.get(run.repositoryKey) ?? 0,
      enqueuedAt: run.enqueuedAt.toISOString(),
      waitSeconds: Math.max(0, Math.floor((now.getTime() - run.enqueuedAt.getTime()) / 1000)),
    }));
  }

  /** The thread's waiting run, or null when none of its runs waits. */
  async ofThread(threadId: string, now = new Date()): Promise<QueuePositionView | null> {
    return (await this.waiting(now)).find((entry) => entry.threadId === threadId) ?? null;
  }
}
