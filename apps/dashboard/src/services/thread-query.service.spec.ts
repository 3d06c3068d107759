import type {
  RunEventRepository,
  RunRepository,
  ThreadPlanRepository,
  ThreadRepository,
} from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import type { QueuePositionsService, QueuePositionView } from './queue-positions.service.js';
import { ThreadQueryService } from './thread-query.service.js';

const THREAD = '6f1d2c3b-4a59-4e68-9d7c-0b1a2c3d4e5f';

function service(status: 'waiting' | 'completed', place: Partial<QueuePositionView> | null) {
  const runs = [factory.run({ threadId: THREAD, status })];
  return new ThreadQueryService(
    strictMock<ThreadRepository>(
      { get: () => Promise.resolve(factory.thread({ id: THREAD })) },
      'threads',
    ),
    strictMock<RunRepository>({ listByThread: () => Promise.resolve(runs) }, 'runs'),
    strictMock<RunEventRepository>({}, 'events'),
    strictMock<ThreadPlanRepository>({}, 'plans'),
    // Strict: a thread with no waiting run must not read the queue at all.
    strictMock<QueuePositionsService>(
      place ? { ofThread: () => Promise.resolve(place as QueuePositionView) } : {},
      'queue',
    ),
  );
}

describe('ThreadQueryService.thread', () => {
  it("answers where the thread's waiting run stands in the queue", async () => {
    const detail = await service('waiting', { position: 3, repositoryPosition: 1 }).thread(THREAD);
    expect(detail.queue).toEqual({ position: 3, repositoryPosition: 1 });
  });

  it('answers no queue place, without reading the queue, when no run of the thread waits', async () => {
    const detail = await service('completed', null).thread(THREAD);
    expect(detail.queue).toBeNull();
    expect(detail.runs).toHaveLength(1);
  });
});
