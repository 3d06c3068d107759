/**
 * A wake-up a loop can sleep on: `wait` resolves on the next `notify` or after the timeout,
 * whichever comes first. A notify that arrives while nobody waits is remembered once, so a
 * publish that lands between a poll and the sleep is not missed.
 */
export class WakeSignal {
  private pending = false;
  private waiter: (() => void) | null = null;

  notify(): void {
    if (this.waiter) {
      const wake = this.waiter;
      this.waiter = null;
      wake();
      return;
    }
    this.pending = true;
  }

  wait(timeoutMs: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve();
      }, timeoutMs);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
