import type { Bus } from '@caravel/messaging';
import { BUS, LeasedSweep, RUNTIME, type PlatformRuntime } from '@caravel/platform';
import { Inject, Injectable } from '@nestjs/common';
import { DISPATCH_CONFIG, type DispatchConfig } from '../dispatch.config.js';
import { AdmissionService } from './admission.service.js';
import { ReconcileService } from './reconcile.service.js';
import { TriggerAccessService } from './trigger-access.service.js';
import { WakeupService } from './wakeup.service.js';

/** What one sweep did; null when another replica held the sweep lease. */
export interface SweepReport {
  failed: string[];
  woken: number;
  admitted: number;
  /** Trigger refusals past their retention, deleted. */
  refusalsDeleted: number;
}

const SWEEP = { name: 'dispatch sweep', logContext: 'DispatchSweep', leaseKey: 'dispatch.sweep' };

/**
 * Dispatch's scheduled housekeeping, on one replica at a time (a bus lease): fail stuck runs,
 * fire due wakeups, admit queued runs that fit, delete trigger refusals past their retention. Runs every `config.dispatch.sweepIntervalMs`
 * (`DISPATCH_SWEEP_INTERVAL_MS`).
 */
@Injectable()
export class DispatchSweepService extends LeasedSweep<SweepReport> {
  constructor(
    @Inject(ReconcileService) private readonly reconcile: ReconcileService,
    @Inject(WakeupService) private readonly wakeups: WakeupService,
    @Inject(AdmissionService) private readonly admission: AdmissionService,
    @Inject(TriggerAccessService) private readonly access: TriggerAccessService,
    @Inject(BUS) bus: Bus,
    @Inject(RUNTIME) runtime: PlatformRuntime,
    @Inject(DISPATCH_CONFIG) config: DispatchConfig,
  ) {
    super({ ...SWEEP, intervalMs: config.dispatch.sweepIntervalMs }, bus, runtime);
  }

  protected async sweepOnce(): Promise<SweepReport> {
    const failed = await this.reconcile.sweep();
    const woken = await this.wakeups.fireDue();
    const admitted = await this.admission.admitWaiting({ source: 'dispatch' });
    const refusalsDeleted = await this.access.pruneRefusals();
    return { failed, woken, admitted, refusalsDeleted };
  }
}
