import { CLOCK, type Clock } from '@caravel/config';
import { EvalScheduleRepository, type EvalScheduleRow } from '@caravel/db';
import type { Bus, Lease } from '@caravel/messaging';
import { BUS, LeasedSweep, RUNTIME, type PlatformRuntime } from '@caravel/platform';
import { Inject, Injectable } from '@nestjs/common';
import type { EvalScheduleSettings } from './eval-scheduler.config.js';
import { latestNight, nightDir, nightRunId } from './schedule-night.js';
import type { ScheduledSuiteRunner } from './scheduled-suite.runner.js';

export const EVAL_SCHEDULE_SETTINGS = Symbol('EVAL_SCHEDULE_SETTINGS');
export const SCHEDULED_SUITE_RUNNER = Symbol('SCHEDULED_SUITE_RUNNER');

const SWEEP_LEASE = 'evals.schedules';
/** A suite's own lease: held (renewed) while its night runs, so no other replica starts it. */
const SUITE_LEASE_MS = 10 * 60_000;

/** What one sweep did with each due suite. */
export interface SweepOutcome {
  readonly ran: string[];
  readonly failed: string[];
}

/**
 * Scheduled eval suites (docs/evals.md#scheduled-suites): every `EVAL_SCHEDULE_CHECK_MS`, on one
 * replica (the sweep's lease), each active schedule whose night has come since it was registered
 * and whose run for that night is not finished is run to the end, one suite at a time, under a
 * lease of its own renewed while it runs. The night's run id and folder are derived from the
 * schedule and the night, so a run a crash or a stop interrupted is resumed by the next sweep
 * (`eval run`'s ledger, the reviewer's recorded cases): no attempt is run twice. A night whose
 * run failed is kept with its error and not tried again until the next night.
 */
@Injectable()
export class EvalScheduleSweep extends LeasedSweep<SweepOutcome> {
  private readonly stopping = new AbortController();

  constructor(
    @Inject(EvalScheduleRepository) private readonly schedules: EvalScheduleRepository,
    @Inject(SCHEDULED_SUITE_RUNNER) private readonly runner: ScheduledSuiteRunner,
    @Inject(BUS) bus: Bus,
    @Inject(RUNTIME) runtime: PlatformRuntime,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(EVAL_SCHEDULE_SETTINGS) private readonly settings: EvalScheduleSettings,
  ) {
    super(
      {
        name: 'eval schedules',
        logContext: 'EvalSchedules',
        leaseKey: SWEEP_LEASE,
        intervalMs: settings.checkMs,
      },
      bus,
      runtime,
    );
  }

  protected async sweepOnce(): Promise<SweepOutcome> {
    const outcome: SweepOutcome = { ran: [], failed: [] };
    for (const schedule of await this.schedules.list({ active: true })) {
      if (this.stopping.signal.aborted) break;
      const night = latestNight(schedule.hour, this.clock.now());
      if (!(await this.due(schedule, night))) continue;
      const ran = await this.runNight(schedule, night);
      if (ran !== null) (ran ? outcome.ran : outcome.failed).push(schedule.name);
    }
    return outcome;
  }

  private async due(schedule: EvalScheduleRow, night: Date): Promise<boolean> {
    if (night <= schedule.createdAt) return false;
    if (schedule.failedSlot?.getTime() === night.getTime()) return false;
    const run = await this.schedules.runFor(schedule.id, night);
    return run?.status !== 'finished';
  }

  /** True when the night's run finished, false when it failed, null when it was not run. */
  private async runNight(schedule: EvalScheduleRow, night: Date): Promise<boolean | null> {
    const key = `${SWEEP_LEASE}:${schedule.id}`;
    const acquired = await this.bus.leases.acquire(key, this.runtime.name, SUITE_LEASE_MS);
    if (!acquired) return null;
    let lease: Lease = acquired;
    const renew = setInterval(() => {
      void this.bus.leases.renew(lease, SUITE_LEASE_MS).then((renewed) => {
        if (renewed) lease = renewed;
      });
    }, SUITE_LEASE_MS / 3);
    renew.unref();
    try {
      await this.runner.run(schedule, {
        slot: night,
        runId: nightRunId(schedule.id, night),
        out: nightDir(this.settings.dir, schedule.name, night),
        signal: this.stopping.signal,
      });
      return true;
    } catch (error) {
      // Stopped with the host: the next sweep resumes the night.
      if (this.stopping.signal.aborted) return null;
      const message = error instanceof Error ? error.message : String(error);
      this.log.warn(
        `scheduled suite ${schedule.name} failed for ${night.toISOString()}: ${message}`,
      );
      await this.schedules.failed(schedule.id, night, message);
      return false;
    } finally {
      clearInterval(renew);
      await this.bus.leases.release(lease).catch(() => false);
    }
  }

  /** Stops the suite in flight (its attempts end; the night resumes at the next start). */
  override onModuleDestroy(): Promise<void> {
    this.stopping.abort(new Error('the host is stopping'));
    return super.onModuleDestroy();
  }
}
