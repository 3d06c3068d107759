import type { Bus } from '@caravel/messaging';
import { BUS, LeasedPeriodicTask, RUNTIME, type PlatformRuntime } from '@caravel/platform';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { DISPATCH_CONFIG, type DispatchConfig } from '../dispatch.config.js';
import { AdmissionService } from './admission.service.js';
import { ReconcileService } from './reconcile.service.js';
import { WakeupService } from './wakeup.service.js';

/** What one sweep did; null when another replica held the sweep lease. */
export interface SweepReport {
  failed: string[];
  woken: number;
  admitted: number;
}

const SWEEP_LEASE = 'dispatch.sweep';

/**
 * Dispatch's scheduled housekeeping, on one replica at a time (a bus lease): fail stuck runs,
 * fire due wakeups, admit queued runs that fit. Runs every `config.dispatch.sweepIntervalMs`
 * (`DISPATCH_SWEEP_INTERVAL_MS`).
 */
@Injectable()
export class DispatchSweepService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly task = new LeasedPeriodicTask(
    'dispatch sweep',
    SWEEP_LEASE,
    () => ({
      leases: this.bus.leases,
      holder: this.runtime.name,
      intervalMs: this.config.dispatch.sweepIntervalMs,
    }),
    async (): Promise<SweepReport> => {
      const failed = await this.reconcile.sweep();
      const woken = await this.wakeups.fireDue();
      const admitted = await this.admission.admitWaiting({ source: 'dispatch' });
      return { failed, woken, admitted };
    },
    new Logger('DispatchSweep'),
  );

  constructor(
    @Inject(ReconcileService) private readonly reconcile: ReconcileService,
    @Inject(WakeupService) private readonly wakeups: WakeupService,
    @Inject(AdmissionService) private readonly admission: AdmissionService,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(RUNTIME) private readonly runtime: PlatformRuntime,
    @Inject(DISPATCH_CONFIG) private readonly config: DispatchConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start();
  }

  /** One sweep now (or the one already running); null when it failed or another replica swept. */
  sweep(): Promise<SweepReport | null> {
    return this.task.run();
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }
}
