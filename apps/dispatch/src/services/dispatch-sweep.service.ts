import type { Bus } from '@caravel/messaging';
import { BUS, RUNTIME, type PlatformRuntime } from '@caravel/platform';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { DISPATCH_SETTINGS, type DispatchSettings } from '../dispatch.settings.js';
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
 * fire due wakeups, admit queued runs that fit. Runs every `DISPATCH_SWEEP_INTERVAL_MS`.
 */
@Injectable()
export class DispatchSweepService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('DispatchSweep');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SweepReport | null> | undefined;

  constructor(
    @Inject(ReconcileService) private readonly reconcile: ReconcileService,
    @Inject(WakeupService) private readonly wakeups: WakeupService,
    @Inject(AdmissionService) private readonly admission: AdmissionService,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(RUNTIME) private readonly runtime: PlatformRuntime,
    @Inject(DISPATCH_SETTINGS) private readonly settings: DispatchSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.settings.DISPATCH_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** One sweep now (or the one already running). */
  sweep(): Promise<SweepReport | null> {
    this.running ??= this.sweepOnce()
      .catch((error: unknown) => {
        this.log.warn(`dispatch sweep failed: ${String(error)}`);
        return null;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweepOnce(): Promise<SweepReport | null> {
    const ttl = Math.max(60_000, this.settings.DISPATCH_SWEEP_INTERVAL_MS * 2);
    const lease = await this.bus.leases.acquire(SWEEP_LEASE, this.runtime.name, ttl);
    if (!lease) return null;
    try {
      const failed = await this.reconcile.sweep();
      const woken = await this.wakeups.fireDue();
      const admitted = await this.admission.admitWaiting({ source: 'dispatch' });
      return { failed, woken, admitted };
    } finally {
      await this.bus.leases.release(lease).catch(() => false);
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
