import type { Bus } from '@caravel/messaging';
import { PeriodicTask, type PeriodicTaskLogger } from './periodic-task.js';
import { periodicLease, underLease } from './under-lease.js';

/** Where and how often a leased task runs; read when it starts and at each run. */
export interface LeasedSchedule {
  readonly leases: Bus['leases'];
  /** Who holds the lease: the process's runtime name. */
  readonly holder: string;
  readonly intervalMs: number;
}

/**
 * Work run every interval on one replica at a time (a bus lease named `leaseKey`, kept two
 * intervals and at least a minute): the scheduled sweeps of dispatch, CI babysitting and the
 * analyzer. A run asked for while one is going joins it; stopping waits for the run in flight.
 * `schedule` is read lazily, so a Nest service can build the task in a field initializer.
 */
export class LeasedPeriodicTask<T> {
  private readonly task: PeriodicTask<T | null>;

  constructor(
    name: string,
    leaseKey: string,
    private readonly schedule: () => LeasedSchedule,
    work: () => Promise<T>,
    log: PeriodicTaskLogger,
  ) {
    this.task = new PeriodicTask(
      name,
      () => {
        const { leases, holder, intervalMs } = this.schedule();
        return underLease(leases, periodicLease(leaseKey, holder, intervalMs), work);
      },
      log,
    );
  }

  start(): void {
    this.task.start(this.schedule().intervalMs);
  }

  /** One run now (or the one in flight); null when it failed or another replica ran it. */
  async run(): Promise<T | null> {
    return (await this.task.run()) ?? null;
  }

  stop(): Promise<void> {
    return this.task.stop();
  }
}
