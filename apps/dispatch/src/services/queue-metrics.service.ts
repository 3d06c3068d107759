import { RunQueueRepository } from '@caravel/db';
import { dispatchQueueRuns } from '@caravel/metrics';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';

/** The fair-share queue's depth on /metrics (`caravel_dispatch_queue_runs`), read when scraped. */
@Injectable()
export class QueueMetricsService implements OnModuleInit, OnModuleDestroy {
  private remove: (() => void) | undefined;

  constructor(@Inject(RunQueueRepository) private readonly queue: RunQueueRepository) {}

  onModuleInit(): void {
    this.remove = dispatchQueueRuns.addSource(async () => {
      const { waiting, active } = await this.queue.depth();
      return [
        { labels: { state: 'waiting' }, value: waiting },
        { labels: { state: 'active' }, value: active },
      ];
    });
  }

  onModuleDestroy(): void {
    this.remove?.();
  }
}
