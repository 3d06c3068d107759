/** Counts free handler slots for one subscription, so a replica runs at most `capacity` at once. */
export class SlotLimiter {
  private free: number;
  private waiters: Array<() => void> = [];
  private inUse = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(readonly capacity: number) {
    this.free = capacity;
  }

  /** Waits for at least one free slot, then takes up to `max` of them. */
  async reserve(max: number): Promise<number> {
    while (this.free === 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
    const taken = Math.min(this.free, max);
    this.free -= taken;
    this.inUse += taken;
    return taken;
  }

  release(count = 1): void {
    this.free += count;
    this.inUse -= count;
    for (const wake of this.waiters.splice(0)) wake();
    if (this.inUse === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** Resolves when no slot is taken (every handler has settled). */
  idle(): Promise<void> {
    if (this.inUse === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
