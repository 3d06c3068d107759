/** How often a run looks for a follow-up that asks to interrupt it. */
export const INTERRUPT_POLL_MS = 1000;

/**
 * Watches for a follow-up that asks to interrupt the run (a new message from a person, by the
 * dispatch policy) and aborts the run's stream when one arrives. The run then ends `interrupted`
 * at its last checkpoint and the next run resumes its history with the new message.
 */
export class InterruptWatch {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private polling = false;

  constructor(
    private readonly interruptWaiting: () => Promise<boolean>,
    intervalMs: number = INTERRUPT_POLL_MS,
  ) {
    this.timer = setInterval(() => void this.poll(), intervalMs);
    this.timer.unref();
  }

  /** Aborted once an interrupting follow-up is waiting. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get interrupted(): boolean {
    return this.controller.signal.aborted;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async poll(): Promise<void> {
    if (this.polling || this.interrupted) return;
    this.polling = true;
    try {
      if (await this.interruptWaiting()) {
        this.stop();
        this.controller.abort(new Error('interrupted by a new message on the thread'));
      }
    } catch {
      // The next poll tries again; a database blip must not end the run.
    } finally {
      this.polling = false;
    }
  }
}
