import { CLOCK, type Clock } from '@caravel/config';
import { DeliveryRepository } from '@caravel/db';
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
 * (GitHub's is the longest, 3 days) a record dedupes nothing. Every ingress instance sweeps;
 * the deletes are idempotent.
 */
@Injectable()
export class DeliveryRetentionService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('DeliveryRetention');
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  constructor(
    @Inject(DeliveryRepository) private readonly deliveries: DeliveryRepository,
    @Inject(INGRESS_CONFIG) private readonly config: IngressConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweepLogged(), HOUR_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
  }

  /** Deletes every delivery past retention; returns how many. One sweep at a time. */
  sweep(): Promise<number> {
    this.sweeping ??= this.deleteExpired().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async deleteExpired(): Promise<number> {
    const cutoff = new Date(
      this.clock.now().getTime() - this.config.deliveryRetentionHours * HOUR_MS,
    );
    let total = 0;
    for (;;) {
      const deleted = await this.deliveries.deleteReceivedBefore(cutoff, BATCH);
      total += deleted;
      if (deleted < BATCH) return total;
    }
  }

  private async sweepLogged(): Promise<void> {
    try {
      const deleted = await this.sweep();
      if (deleted > 0) this.log.log(`deleted ${deleted} deliveries past retention`);
    } catch (error) {
      // The next hour tries again; dedupe only needs the recent rows.
      this.log.warn(`delivery retention sweep failed: ${String(error)}`);
    }
  }
}
