/** Where a periodic task says that one of its runs failed. */
export interface PeriodicTaskLogger {
  warn(message: string): void;
}

/**
 * Housekeeping on a schedule (the broker's idle-sandbox sweep; `LeasedSweep` runs one under a bus
 * lease): one run at a time, a run asked for while one is going joins it, a failed run is logged
 * and the schedule goes on, and stopping waits for the run in flight.
 */
export class PeriodicTask<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T | undefined> | undefined;

  constructor(
    /** What the log calls it (`dispatch sweep`). */
    private readonly name: string,
    private readonly work: () => Promise<T>,
    private readonly log: PeriodicTaskLogger,
  ) {}

  /** Runs the task every `intervalMs` (the timer does not keep the process alive). */
  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.run(), intervalMs);
    this.timer.unref();
  }

  /** One run now (or the one already running); undefined when it failed. */
  run(): Promise<T | undefined> {
    this.running ??= this.work()
      .catch((error: unknown) => {
        this.log.warn(`${this.name} failed: ${String(error)}`);
        return undefined;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** Stops the schedule and waits for the run in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
