import type { QueueSnapshot } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { admissible, fairOrder, queuePosition } from './fair-share.js';

const at = (second: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, second));

function waiting(runId: string, repositoryKey: string, userKey: string, second: number) {
  return factory.queuedRun({
    runId,
    threadId: runId,
    repositoryKey,
    userKey,
    enqueuedAt: at(second),
  });
}

function snapshot(overrides: Partial<QueueSnapshot>): QueueSnapshot {
  return {
    waiting: [],
    active: [],
    repositoriesLastAdmitted: [],
    usersLastAdmitted: [],
    ...overrides,
  };
}

describe('fair share', () => {
  it('takes repositories in turn instead of draining the busiest first', () => {
    const queue = snapshot({
      waiting: [
        waiting('a1', 'acme/api', 'u1', 1),
        waiting('a2', 'acme/api', 'u1', 2),
        waiting('a3', 'acme/api', 'u1', 3),
        waiting('b1', 'acme/web', 'u2', 4),
        waiting('c1', 'acme/cli', 'u3', 5),
      ],
    });
    expect(fairOrder(queue).map((r) => r.runId)).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
  });

  it('serves the repository and user with the fewest active runs, then the one served longest ago', () => {
    const queue = snapshot({
      waiting: [waiting('a2', 'acme/api', 'u1', 1), waiting('b2', 'acme/web', 'u2', 2)],
      active: [{ runId: 'a1', repositoryKey: 'acme/api', userKey: 'u1' }],
    });
    expect(fairOrder(queue).map((r) => r.runId)).toEqual(['b2', 'a2']);

    const served = snapshot({
      waiting: [waiting('a2', 'acme/api', 'u1', 1), waiting('b2', 'acme/web', 'u2', 2)],
      repositoriesLastAdmitted: [
        { key: 'acme/api', at: at(50) },
        { key: 'acme/web', at: at(10) },
      ],
    });
    expect(fairOrder(served).map((r) => r.runId)).toEqual(['b2', 'a2']);
  });

  it('between two users on one repository, alternates users', () => {
    const queue = snapshot({
      waiting: [
        waiting('x1', 'acme/api', 'alice', 1),
        waiting('x2', 'acme/api', 'alice', 2),
        waiting('y1', 'acme/api', 'bob', 3),
      ],
    });
    expect(fairOrder(queue).map((r) => r.runId)).toEqual(['x1', 'y1', 'x2']);
  });

  it('admits within the platform limit and skips (never drops) repositories at their own limit', () => {
    const queue = snapshot({
      waiting: [
        waiting('a2', 'acme/api', 'u1', 1),
        waiting('a3', 'acme/api', 'u1', 2),
        waiting('b1', 'acme/web', 'u2', 3),
        waiting('c1', 'acme/cli', 'u3', 4),
      ],
      active: [{ runId: 'a1', repositoryKey: 'acme/api', userKey: 'u1' }],
    });
    const limits = { maxActive: 3, maxActivePerRepository: 1 };
    expect(admissible(queue, limits).map((r) => r.runId)).toEqual(['b1', 'c1']);
    expect(admissible(queue, { maxActive: 1, maxActivePerRepository: 5 })).toEqual([]);
    expect(queuePosition(queue, 'a3')).toBe(4);
    expect(queuePosition(queue, 'gone')).toBe(0);
  });
});
