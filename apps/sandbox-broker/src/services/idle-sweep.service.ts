import { PeriodicTask } from '@caravel/platform';
import { IdleReclaimer, type SweepReport } from '@caravel/sandbox';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { SANDBOX_BROKER_CONFIG, type SandboxBrokerConfig } from '../sandbox-broker.config.js';

/** Runs the idle-sandbox TTL policy on a schedule (one sweep at a time). */
@Injectable()
export class IdleSweepService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('IdleSweep');
  private readonly task = new PeriodicTask('idle sweep', () => this.sweepOnce(), this.log);

  constructor(
    @Inject(IdleReclaimer) private readonly reclaimer: IdleReclaimer,
    @Inject(SANDBOX_BROKER_CONFIG) private readonly config: SandboxBrokerConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(this.config.sandbox.sweepIntervalMs);
  }

  /** One sweep now (or the one already running); undefined when it failed. */
  sweep(): Promise<SweepReport | undefined> {
    return this.task.run();
  }

  private async sweepOnce(): Promise<SweepReport> {
    const report = await this.reclaimer.sweep();
    if (report.reclaimed.length > 0) {
      this.log.log(`reclaimed the idle sandboxes of ${report.reclaimed.length} thread(s)`);
    }
    return report;
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }
}
