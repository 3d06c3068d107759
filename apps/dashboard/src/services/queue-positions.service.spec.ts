import type { QueuePosition, RunQueueRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import { QueuePositionsService } from './queue-positions.service.js';

const NOW = new Date('2026-12-02T10:00:00Z');
const A = '0b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a10';
const B = '1b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a11';
const C = '2b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a12';

function entry(runId: string, repositoryKey: string, position: number, repositoryPosition: number) {
  const run = factory.queuedRun({
    runId,
    threadId: runId,
    repositoryKey,
    userKey: 'slack:U1',
    enqueuedAt: new Date(NOW.getTime() - position * 90_500),
  });
  return { run, position, repositoryPosition } satisfies QueuePosition;
}

function service(positions: QueuePosition[]) {
  return new QueuePositionsService(
    strictMock<RunQueueRepository>({ positions: () => Promise.resolve(positions) }, 'queue'),
  );
}

describe('QueuePositionsService', () => {
  it('lists the waiting runs with their places overall and in their repository, and their wait', async () => {
    const queue = service([
      entry(A, 'acme/api', 1, 1),
      entry(B, 'acme/web', 2, 1),
      entry(C, 'acme/api', 3, 2),
    ]);

    const waiting = await queue.waiting(NOW);

    expect(
      waiting.map((w) => [w.runId, w.position, w.repositoryPosition, w.repositoryWaiting]),
    ).toEqual([
      [A, 1, 1, 2],
      [B, 2, 1, 1],
      [C, 3, 2, 2],
    ]);
    expect(waiting[2]).toMatchObject({
      threadId: C,
      repository: 'acme/api',
      person: 'slack:U1',
      waiting: 3,
      waitSeconds: 271,
      enqueuedAt: new Date(NOW.getTime() - 271_500).toISOString(),
    });
  });

  it("finds a thread's waiting run, and nothing for a thread with none", async () => {
    const queue = service([entry(A, 'acme/api', 1, 1), entry(B, 'acme/web', 2, 1)]);

    expect(await queue.ofThread(B, NOW)).toMatchObject({ runId: B, position: 2, waitSeconds: 181 });
    expect(await queue.ofThread(C, NOW)).toBeNull();
  });
});
