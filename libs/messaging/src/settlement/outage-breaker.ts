import type { BusLogger } from './bus-logger.js';

/** What one delivery said about the consumer's dependencies. */
export type DependencyVerdict = 'down' | 'up' | 'unknown';

/**
 * What `admit()` gives: leave to take work, and whether it is the probe. Reported back with the
 * delivery's verdict, so a late verdict of an earlier probe is not taken for the current one's.
 */
export interface Admission {
  readonly probe: boolean;
}

const FREE: Admission = { probe: false };

export interface OutageBreakerOptions {
  /** The wait before the probe after `failures` outage verdicts in a row. */
  delayMs(failures: number): number;
  /**
   * How long a probe may go without a verdict (the consumer's ack wait) before the next waiter
   * probes instead: a probe whose handler hangs must not hold the consumer.
   */
  probeTimeoutMs: number;
  /** Names the consumer in the log. */
  label: string;
  logger: BusLogger;
  now?: () => number;
}

interface Waiter {
  admit(admission: Admission): void;
}

/**
 * One consumer's circuit breaker for outages. Closed, every puller takes work freely. The first
 * outage verdict opens it: pullers wait in `admit()` until the probe is due, then one of them
 * (the parked retries first) takes one message as the probe while the others go on waiting. A
 * probe whose handler ran without an outage closes the breaker and releases everyone; one that
 * failed with an outage opens it again for a longer wait (the consumer's backoff, capped); one
 * that found nothing to run hands the probe to the next waiter. So during an outage a consumer
 * tries its dependency once per interval instead of once per message, and takes no new messages,
 * which therefore use none of their deliveries.
 */
export class OutageBreaker {
  private state: 'closed' | 'open' | 'probing' = 'closed';
  private probe: Admission | null = null;
  private failures = 0;
  private retryAt = 0;
  private openedAt = 0;
  private readonly urgent: Waiter[] = [];
  private readonly waiting: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly options: OutageBreakerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** True while an outage holds the consumer. */
  get isOpen(): boolean {
    return this.state !== 'closed';
  }

  /**
   * Waits until this puller may take work. Resolves at once while closed (take as much as there
   * is room for); while open, with the probe when it is due: take at most one message and
   * report its verdict with the admission (`unknown` when there was nothing to run). `first`
   * puts the caller ahead of the others (a due parked retry is a surer probe than a pull that
   * may find nothing).
   */
  admit(first = false): Promise<Admission> {
    if (this.state === 'closed' || this.stopped) return Promise.resolve(FREE);
    return new Promise((resolve) => {
      (first ? this.urgent : this.waiting).push({ admit: resolve });
      this.pump();
    });
  }

  /** Reports the verdict of a delivery taken with `admission`. */
  record(verdict: DependencyVerdict, admission: Admission): void {
    if (this.stopped) return;
    const probe = admission.probe && admission === this.probe;
    if (verdict === 'down') {
      // In-flight deliveries failing after the first, or beside the probe, say nothing new.
      if (this.state === 'closed' || (probe && this.state === 'probing')) this.open();
      return;
    }
    if (!probe || this.state !== 'probing') return;
    if (verdict === 'up') {
      this.close();
      return;
    }
    this.handOn();
  }

  /** Releases every waiter (as closed) and stops deciding: the consumer is shutting down. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.probeTimer);
    this.releaseAll();
  }

  private open(): void {
    if (this.state === 'closed') {
      this.openedAt = this.now();
      this.failures = 0;
    }
    this.failures += 1;
    const delay = this.options.delayMs(this.failures);
    this.state = 'open';
    this.probe = null;
    clearTimeout(this.probeTimer);
    this.retryAt = this.now() + delay;
    if (this.failures === 1 || this.failures % 10 === 0) {
      this.options.logger.warn(
        `${this.options.label}: a dependency is unavailable; paused, probing again in ${delay} ms (probe ${this.failures})`,
      );
    }
    this.pump();
  }

  private close(): void {
    const pausedMs = this.now() - this.openedAt;
    this.state = 'closed';
    this.probe = null;
    this.failures = 0;
    clearTimeout(this.timer);
    clearTimeout(this.probeTimer);
    this.options.logger.log(
      `${this.options.label}: dependency back after ${pausedMs} ms paused; resuming`,
    );
    this.releaseAll();
  }

  private releaseAll(): void {
    for (const waiter of [...this.urgent.splice(0), ...this.waiting.splice(0)]) {
      waiter.admit(FREE);
    }
  }

  /** Hands the probe to the first waiter once it is due, or sets a timer for then. */
  private pump(): void {
    clearTimeout(this.timer);
    if (this.state !== 'open') return;
    const next = this.urgent[0] ?? this.waiting[0];
    if (!next) return;
    const wait = this.retryAt - this.now();
    if (wait > 0) {
      this.timer = setTimeout(() => this.pump(), wait);
      this.timer.unref();
      return;
    }
    (this.urgent[0] ? this.urgent : this.waiting).shift();
    const probe: Admission = { probe: true };
    this.state = 'probing';
    this.probe = probe;
    this.probeTimer = setTimeout(() => {
      if (this.probe === probe) this.handOn();
    }, this.options.probeTimeoutMs);
    this.probeTimer.unref();
    next.admit(probe);
  }

  /** The probe said nothing (it found no work, or its handler hangs): the next waiter probes. */
  private handOn(): void {
    clearTimeout(this.probeTimer);
    this.state = 'open';
    this.probe = null;
    this.retryAt = this.now();
    this.pump();
  }
}
