import { CLOCK, type Clock } from '@caravel/config';
import { DeliveryRepository } from '@caravel/db';
import { PeriodicTask } from '@caravel/platform';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { INGRESS_CONFIG, type IngressConfig } from '../ingress.config.js';

const HOUR_MS = 3_600_000;
/** Rows per delete statement, so one sweep never holds a long lock. */
const BATCH = 1_000;

/**
 * Keeps `deliveries` from growing without end: every hour it deletes the deliveries received
 * more than `DELIVERY_RETENTION_HOURS` ago, in batches. Past the senders' redelivery windows
 * (GitHub's is the longest, 3 days) a record dedupes nothing. Every ingress instance sweeps (a
 * `PeriodicTask`, no lease: the deletes are idempotent).
 */
@Injectable()
export class DeliveryRetentionService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('DeliveryRetention');
  // The next hour tries again after a failed sweep; dedupe only needs the recent rows.
  private readonly task = new PeriodicTask(
    'delivery retention sweep',
    () => this.deleteExpired(),
    this.log,
  );

  constructor(
    @Inject(DeliveryRepository) private readonly deliveries: DeliveryRepository,
    @Inject(INGRESS_CONFIG) private readonly config: IngressConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(HOUR_MS);
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** Deletes every delivery past retention; how many, or null when it failed (logged). */
  async sweep(): Promise<number | null> {
    return (await this.task.run()) ?? null;
  }

  private async deleteExpired(): Promise<number> {
    const cutoff = new Date(
      this.clock.now().getTime() - this.config.deliveryRetentionHours * HOUR_MS,
    );
    let total = 0;
    for (;;) {
      const deleted = await this.deliveries.deleteReceivedBefore(cutoff, BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    if (total > 0) this.log.log(`deleted ${total} deliveries past retention`);
    return total;
  }
}
