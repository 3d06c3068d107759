import type { QueueSnapshot, RunQueueRow } from './run-queue.types.js';

// The order the run queue is served in. It lives beside the queue, not in dispatch, because two
// services read it: dispatch admits by it, the dashboard shows each run's place in it (services
// never import each other). It is arithmetic over a snapshot; the SQL stays in the repository.

interface KeyState {
  active: number;
  /** When the key was last served (ms); -Infinity when never. */
  lastServed: number;
}

function tally(snapshot: QueueSnapshot): {
  repositories: Map<string, KeyState>;
  users: Map<string, KeyState>;
} {
  const repositories = new Map<string, KeyState>();
  const users = new Map<string, KeyState>();
  const state = (map: Map<string, KeyState>, key: string): KeyState => {
    let entry = map.get(key);
    if (!entry) map.set(key, (entry = { active: 0, lastServed: -Infinity }));
    return entry;
  };
  for (const run of snapshot.active) {
    state(repositories, run.repositoryKey).active += 1;
    state(users, run.userKey).active += 1;
  }
  for (const { key, at } of snapshot.repositoriesLastAdmitted)
    state(repositories, key).lastServed = at.getTime();
  for (const { key, at } of snapshot.usersLastAdmitted) state(users, key).lastServed = at.getTime();
  return { repositories, users };
}

const orZero = (state: KeyState | undefined) => state ?? { active: 0, lastServed: -Infinity };

/**
 * The order fair share would admit the waiting runs in: first the repository with the fewest
 * active runs, then the user with the fewest, then whichever repository and user were served
 * longest ago (never served first), then the oldest request. Each pick counts as served for the
 * picks after it, so keys take turns (round robin) instead of the busiest draining the queue.
 */
export function fairOrder(snapshot: QueueSnapshot): RunQueueRow[] {
  const { repositories, users } = tally(snapshot);
  const left = [...snapshot.waiting];
  const order: RunQueueRow[] = [];
  let turn = 0;
  while (left.length > 0) {
    let best = 0;
    for (let i = 1; i < left.length; i += 1) {
      if (compare(left[i]!, left[best]!, repositories, users) < 0) best = i;
    }
    const [next] = left.splice(best, 1);
    order.push(next!);
    // A virtual serving time after every real one keeps later picks rotating.
    turn += 1;
    for (const [map, key] of [
      [repositories, next!.repositoryKey],
      [users, next!.userKey],
    ] as const) {
      const entry = orZero(map.get(key));
      map.set(key, { active: entry.active + 1, lastServed: Number.MAX_SAFE_INTEGER - 1e6 + turn });
    }
  }
  return order;
}

function compare(
  a: RunQueueRow,
  b: RunQueueRow,
  repositories: Map<string, KeyState>,
  users: Map<string, KeyState>,
): number {
  const ra = orZero(repositories.get(a.repositoryKey));
  const rb = orZero(repositories.get(b.repositoryKey));
  const ua = orZero(users.get(a.userKey));
  const ub = orZero(users.get(b.userKey));
  return (
    ra.active - rb.active ||
    ua.active - ub.active ||
    ra.lastServed - rb.lastServed ||
    ua.lastServed - ub.lastServed ||
    a.enqueuedAt.getTime() - b.enqueuedAt.getTime() ||
    a.runId.localeCompare(b.runId)
  );
}

/** Where a waiting run stands: its place in the fair order, overall and in its repository. */
export interface QueuePosition {
  run: RunQueueRow;
  /** 1-based place among every waiting run. */
  position: number;
  /** 1-based place among the waiting runs of its repository (its own limit applies there). */
  repositoryPosition: number;
}

/**
 * Every waiting run's place in the order fair share would admit them now (what dispatch told
 * its channel when it started to wait, and what the dashboard shows).
 */
export function queuePositions(snapshot: QueueSnapshot): QueuePosition[] {
  const perRepository = new Map<string, number>();
  return fairOrder(snapshot).map((run, index) => {
    const repositoryPosition = (perRepository.get(run.repositoryKey) ?? 0) + 1;
    perRepository.set(run.repositoryKey, repositoryPosition);
    return { run, position: index + 1, repositoryPosition };
  });
}
