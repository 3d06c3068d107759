/**
 * A FIFO async mutex: `acquire()` resolves with a release function once the previous holder is
 * done. A holder that others wait for hands over on the event loop's next turn, not at once: the
 * PGlite session's statements run on this thread, and handed from one to the next through
 * promises alone they kept its sockets unread for seconds under load (the ingress peak: p99
 * 0.5-5.2 s, and 0.28-0.29 s with the hand-over on the next turn). Free, it is taken at once.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  async acquire(): Promise<() => void> {
    let unlock!: () => void;
    const held = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const previous = this.tail;
    this.tail = previous.then(() => held);
    this.waiting += 1;
    try {
      await previous;
    } finally {
      this.waiting -= 1;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (this.waiting > 0) setImmediate(unlock);
      else unlock();
    };
  }

  async runExclusive<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}
