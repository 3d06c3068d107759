import { OpsRepository, RunQueueRepository } from '@caravel/db';
import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import type { opsResponse } from '../api/ops-schemas.js';
import { summarise } from './ops-summary.js';
import { QueuePositionsService } from './queue-positions.service.js';

export type OpsView = z.output<typeof opsResponse>;

const DAY_MS = 86_400_000;

/** The ops page: what the platform did over a window of UTC days, and what it cost. */
@Injectable()
export class OpsService {
  constructor(
    @Inject(OpsRepository) private readonly ops: OpsRepository,
    @Inject(RunQueueRepository) private readonly queue: RunQueueRepository,
    @Inject(QueuePositionsService) private readonly positions: QueuePositionsService,
  ) {}

  /** `days` UTC days ending with `until` (`YYYY-MM-DD`; today when absent). */
  async summary(
    query: { days: number; until?: string | undefined },
    now = new Date(),
  ): Promise<OpsView> {
    const last = query.until ? new Date(`${query.until}T00:00:00Z`) : now;
    const until = new Date(
      Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), last.getUTCDate()) + DAY_MS,
    );
    const since = new Date(until.getTime() - query.days * DAY_MS);
    const window = { since, until };
    const [queue, waiting, buckets, durations, pullRequests, statuses, failures, reviews] =
      await Promise.all([
        this.queue.depth(),
        this.positions.waiting(now),
        this.ops.buckets(window),
        this.ops.durations(window),
        this.ops.pullRequests(window),
        this.ops.statuses(window),
        this.ops.failures(window),
        this.ops.reviews(window),
      ]);
    return {
      window: { since: since.toISOString(), until: until.toISOString() },
      queue: { ...queue, runs: waiting },
      ...summarise({ since, until, buckets, durations, pullRequests, reviews }),
      statuses,
      failures,
    };
  }
}
