/**
 * A FIFO async mutex: `acquire()` resolves with a release function once the previous holder is
 * done. A holder that others wait for hands over on the event loop's next turn, not at once: the
 * PGlite session's statements run on this thread, and handed from one to the next through
 * promises alone they kept its sockets unread for seconds under load (the ingress peak: p99
 * 0.5-5.2 s, and 0.28-0.29 s with the hand-over on the next turn). Free, it is taken at once.
 *
 * Every statement on PGlite takes it, so it allocates little: a free lock costs a resolved
 * promise and the release function, a waiter one pending promise more.
 */
export class Mutex {
  private held = false;
  /** Who waits, first first: each takes the lock when called. */
  private readonly waiting: (() => void)[] = [];

  acquire(): Promise<() => void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      this.waiting.push(() => resolve(this.releaser()));
    });
  }

  async runExclusive<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** The holder's release: the first call hands the lock over, a second does nothing. */
  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) setImmediate(next);
      else this.held = false;
    };
  }
}
