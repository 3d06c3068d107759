import type {
  Admission,
  BusLogger,
  DependencyVerdict,
  OutageBreaker,
} from '../settlement/index.js';
import type { ParkedEntry, ParkedThreads } from './parked-threads.js';
import type { SlotLimiter } from './slot-limiter.js';
import type { ParkedAttempt, ThreadParking } from './thread-parking.js';

const REWATCH_AFTER_MS = 1_000;

function runKey(entry: ParkedEntry): string {
  return `${entry.threadId}@${entry.revision}`;
}

export interface ParkedRunnerOptions {
  store: ParkedThreads;
  parking: ThreadParking;
  limiter: SlotLimiter;
  /** While an outage holds the consumer, a due thread waits for the probe (ahead of the pulls). */
  breaker: OutageBreaker;
  label: string;
  logger: BusLogger;
  /** Runs one claimed attempt and settles it through the parking rules. */
  run(attempt: ParkedAttempt): Promise<DependencyVerdict>;
}

/**
 * One replica's share of the retries of parked threads. It watches the consumer's parked
 * records; when a thread's first message is due, or the replica trying it let its deadline
 * pass, it claims the message (a compare-and-set, so one replica wins) and runs it in one of
 * the subscription's handler slots.
 */
export class ParkedRunner {
  private readonly parked = new Map<string, ParkedEntry>();
  /**
   * Attempts running here, by `<threadId>@<revision>` of the record they claimed from: the claim
   * changes the revision, so once that attempt's deadline passes it may be taken over, here too.
   */
  private readonly running = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopWatch: () => void = () => undefined;
  private stopped = false;
  private finished: Promise<void> = Promise.resolve();

  constructor(private readonly options: ParkedRunnerOptions) {}

  start(): void {
    this.finished = this.watchLoop();
  }

  /** Stops claiming; attempts already running finish in their slots (see `SlotLimiter.idle`). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stopWatch();
    await this.finished;
  }

  private async watchLoop(): Promise<void> {
    while (!this.stopped) {
      try {
        const watch = await this.options.store.watch();
        this.stopWatch = () => watch.stop();
        if (this.stopped) watch.stop();
        this.parked.clear();
        for await (const change of watch.changes) {
          this.remember(change.threadId, change.entry);
          this.schedule();
        }
      } catch (error) {
        if (this.stopped) return;
        this.options.logger.warn(
          `${this.options.label}: watching parked threads failed, retrying: ${String(error)}`,
        );
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, REWATCH_AFTER_MS));
    }
  }

  /** Keeps the newest revision seen of a thread's record (the watch and a re-read may cross). */
  private remember(threadId: string, entry: ParkedEntry | null): void {
    if (!entry) {
      this.parked.delete(threadId);
      return;
    }
    const known = this.parked.get(threadId);
    if (!known || known.revision <= entry.revision) this.parked.set(threadId, entry);
  }

  /** Sets the timer for the earliest thread that is not already running here. */
  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    let next = Infinity;
    for (const entry of this.parked.values()) {
      if (!this.running.has(runKey(entry))) {
        next = Math.min(next, this.options.parking.readyAt(entry));
      }
    }
    if (next === Infinity) return;
    this.timer = setTimeout(() => void this.tick(), Math.max(0, next - Date.now()));
  }

  private async tick(): Promise<void> {
    for (const entry of [...this.parked.values()]) {
      if (this.stopped) return;
      const ready = this.options.parking.readyAt(entry) <= Date.now();
      if (!ready || this.running.has(runKey(entry))) continue;
      this.running.add(runKey(entry));
      const admission = await this.options.breaker.admit(true);
      await this.options.limiter.reserve(1);
      void this.attempt(entry, admission);
    }
    this.schedule();
  }

  private async attempt(entry: ParkedEntry, admission: Admission): Promise<void> {
    let verdict: DependencyVerdict = 'unknown';
    try {
      if (this.stopped) return;
      const attempt = await this.options.parking.claim(entry);
      if (attempt) verdict = await this.options.run(attempt);
      // Lost to another replica, or not due after all: look again rather than at a stale copy.
      else this.remember(entry.threadId, await this.options.store.get(entry.threadId));
    } catch (error) {
      this.options.logger.error(
        `${this.options.label}: retrying parked thread ${entry.threadId} failed: ${String(error)}`,
      );
    } finally {
      this.options.limiter.release(1);
      this.options.breaker.record(verdict, admission);
      this.running.delete(runKey(entry));
      this.schedule();
    }
  }
}
