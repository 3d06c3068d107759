import type { Bus } from '@caravel/messaging';
import { Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { PeriodicTask } from './periodic-task.js';
import type { PlatformRuntime } from './runtime.js';
import { periodicLease, underLease } from './under-lease.js';

/** What a leased sweep is called, the lease that keeps it on one replica, and its interval. */
export interface LeasedSweepSchedule {
  /** What the log says of a failed run (`dispatch sweep failed: …`). */
  readonly name: string;
  /** The Nest logger's context (`DispatchSweep`). */
  readonly logContext: string;
  /** The bus lease held while a run goes (`dispatch.sweep`). */
  readonly leaseKey: string;
  /** From the app's typed config (`config.dispatch.sweepIntervalMs`). */
  readonly intervalMs: number;
}

/**
 * The one way to declare scheduled work that runs on one replica at a time: dispatch's sweep,
 * CI babysitting's polling, the analyzer's nightly check. A subclass is an `@Injectable()`
 * provider that passes its schedule, the bus and the runtime to `super` and implements
 * `sweepOnce`. The sweep starts when the application has bootstrapped and runs every interval
 * under a bus lease (kept two intervals and at least a minute, see `periodicLease`); a sweep asked
 * for while one is going joins it, a failed one is logged and the schedule goes on, and module
 * destruction stops the timer and waits for the sweep in flight.
 */
export abstract class LeasedSweep<T> implements OnApplicationBootstrap, OnModuleDestroy {
  protected readonly log: Logger;
  private readonly task: PeriodicTask<T | null>;

  protected constructor(
    private readonly schedule: LeasedSweepSchedule,
    protected readonly bus: Bus,
    protected readonly runtime: PlatformRuntime,
  ) {
    this.log = new Logger(schedule.logContext);
    const lease = () => periodicLease(schedule.leaseKey, runtime.name, schedule.intervalMs);
    this.task = new PeriodicTask(
      schedule.name,
      () => underLease(bus.leases, lease(), () => this.sweepOnce()),
      this.log,
    );
  }

  /** One sweep's work, run while this replica holds the lease. */
  protected abstract sweepOnce(): Promise<T>;

  onApplicationBootstrap(): void {
    this.task.start(this.schedule.intervalMs);
  }

  /** One sweep now (or the one in flight); null when it failed or another replica swept. */
  async sweep(): Promise<T | null> {
    return (await this.task.run()) ?? null;
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }
}
