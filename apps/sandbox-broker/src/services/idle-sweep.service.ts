import { IdleReclaimer, type SweepReport } from '@caravel/sandbox';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { BROKER_SETTINGS, type SandboxBrokerSettings } from '../sandbox-broker.settings.js';

/** Runs the idle-sandbox TTL policy on a schedule (one sweep at a time). */
@Injectable()
export class IdleSweepService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('IdleSweep');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SweepReport | undefined> | undefined;

  constructor(
    @Inject(IdleReclaimer) private readonly reclaimer: IdleReclaimer,
    @Inject(BROKER_SETTINGS) private readonly settings: SandboxBrokerSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.settings.SANDBOX_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** One sweep now (or the one already running). */
  sweep(): Promise<SweepReport | undefined> {
    this.running ??= this.reclaimer
      .sweep()
      .then((report) => {
        if (report.reclaimed.length > 0) {
          this.log.log(`reclaimed the idle sandboxes of ${report.reclaimed.length} thread(s)`);
        }
        return report;
      })
      .catch((error: unknown) => {
        this.log.warn(`idle sweep failed: ${String(error)}`);
        return undefined;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
