/** Polling and synchronisation helpers for behaviour tests; none of them asserts a duration. */

export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Re-runs `check` until it stops throwing, then returns its value. The last failure is rethrown
 * when the time runs out, so a failing expectation reads as itself rather than as a timeout.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  options: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  const interval = options.intervalMs ?? 50;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await sleep(interval);
    }
  }
}

/** A latch a handler can wait on until the test opens it (or the suite cleans up). */
export class Gate {
  private openGate: () => void = () => undefined;
  private readonly opened: Promise<void>;
  private isOpen = false;

  constructor() {
    this.opened = new Promise<void>((resolve) => {
      this.openGate = resolve;
    });
  }

  get open(): boolean {
    return this.isOpen;
  }

  release(): void {
    this.isOpen = true;
    this.openGate();
  }

  /** Resolves true once released, or false when `timeoutMs` passes first. */
  async wait(timeoutMs = 60_000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const result = await Promise.race([this.opened.then(() => true), timedOut]);
    clearTimeout(timer);
    return result;
  }
}
