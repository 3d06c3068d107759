import { RunInterruptNotice } from '@caravel/contracts';
import type { Bus, Subscription } from '@caravel/messaging';

/**
 * How often a run looks for an interrupting follow-up on its own by default
 * (`RUN_INTERRUPT_POLL_MS`). Dispatch tells the run as soon as one is stored
 * ({@link RunInterruptNotice}); this poll is only the safety net for a notice that was lost (a
 * runner that was not listening yet, a bus blip).
 */
export const INTERRUPT_SAFETY_POLL_MS = 15_000;

/**
 * Watches for a follow-up that asks to interrupt the run (a new message from a person, by the
 * dispatch policy) and aborts the run's stream when one arrives. The run then ends `interrupted`
 * at its last checkpoint and the next run resumes its history with the new message. It checks
 * when told to ({@link check}, on a notice) and every `intervalMs` regardless.
 */
export class InterruptWatch {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private checking: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly interruptWaiting: () => Promise<boolean>,
    intervalMs: number = INTERRUPT_SAFETY_POLL_MS,
  ) {
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
  }

  /** Aborted once an interrupting follow-up is waiting. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get interrupted(): boolean {
    return this.controller.signal.aborted;
  }

  /** Checks no more (the run ended): a late notice changes nothing. */
  stop(): void {
    clearInterval(this.timer);
    this.stopped = true;
  }

  /**
   * Looks for an interrupting follow-up now. A check asked for while one runs is made again right
   * after it (the running one may have looked before the message was stored).
   */
  check(): Promise<void> {
    if (this.interrupted || this.stopped) return Promise.resolve();
    if (this.checking) {
      this.again = true;
      return this.checking;
    }
    this.checking = this.look().finally(() => {
      this.checking = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        void this.check();
      }
    });
    return this.checking;
  }

  private async look(): Promise<void> {
    try {
      if ((await this.interruptWaiting()) && !this.stopped) {
        this.stop();
        this.controller.abort(new Error('interrupted by a new message on the thread'));
      }
    } catch {
      // The next check tries again; a database blip must not end the run.
    }
  }
}

/**
 * Serves the thread's {@link RunInterruptNotice} for as long as the run lasts: each notice makes
 * `watch` check at once. Drain the subscription when the run ends.
 */
export function listenForInterrupts(
  bus: Bus,
  threadId: string,
  watch: InterruptWatch,
): Promise<Subscription> {
  return bus.serve(RunInterruptNotice.subjectFor(threadId), async (raw) => {
    RunInterruptNotice.parseRequest(raw);
    void watch.check();
    return Promise.resolve({ checking: true as const });
  });
}
