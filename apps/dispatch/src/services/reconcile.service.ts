import { CLOCK, type Clock } from '@caravel/config';
import { CARAVEL_NAMESPACE, RunFinishedV1, uuidV5 } from '@caravel/contracts';
import { RunRepository } from '@caravel/db';
import { MessagePublisher, type Bus } from '@caravel/messaging';
import { BUS } from '@caravel/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DISPATCH_CONFIG, type DispatchConfig } from '../dispatch.config.js';
import { staleCutoffs, staleVerdict, type StaleLimits } from './reconcile-policy.js';

/**
 * Fails runs stuck pending or silent past their limits by publishing their `evt.run.finished`
 * (outcome `failed`), so the usual path frees the thread, admits the next run and replies once.
 * The event id is the one the runner would use, so a late runner's own ending is dropped.
 */
@Injectable()
export class ReconcileService {
  private readonly log = new Logger('Reconcile');
  private readonly limits: StaleLimits;

  constructor(
    @Inject(RunRepository) private readonly runs: RunRepository,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(DISPATCH_CONFIG) config: DispatchConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.limits = {
      pendingMs: config.dispatch.pendingLimitMs,
      heartbeatMs: config.dispatch.heartbeatLimitMs,
    };
  }

  /** Ends every stale run; returns their ids. */
  async sweep(): Promise<string[]> {
    const now = this.clock.now();
    const failed: string[] = [];
    for (const run of await this.runs.listStale(staleCutoffs(now, this.limits))) {
      const lease = await this.bus.leases.get(`thread.${run.threadId}`);
      const verdict = staleVerdict(run, now, this.limits, lease !== null && lease.expiresAt > now);
      if (!verdict) continue;
      this.log.warn(`run ${run.id} is stuck (${verdict.exitStatus}): failing it`);
      await this.publisher.publish(
        RunFinishedV1,
        {
          threadId: run.threadId,
          runId: run.id,
          outcome: 'failed',
          exitStatus: verdict.exitStatus,
          summary: verdict.summary,
        },
        { source: 'dispatch', id: uuidV5(`finished:${run.id}`, CARAVEL_NAMESPACE) },
      );
      failed.push(run.id);
    }
    return failed;
  }
}
