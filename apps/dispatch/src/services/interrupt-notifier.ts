import { RunInterruptNotice } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import { BUS } from '@caravel/platform';
import { Inject, Injectable } from '@nestjs/common';

/** Long enough for a live runner to answer; nobody answering is the common "no run here" case. */
const NOTICE_TIMEOUT_MS = 2_000;

/**
 * Tells the runner that holds a thread's active run that an interrupting follow-up was stored
 * ({@link RunInterruptNotice}), so the run stops at once rather than at its next poll. Best
 * effort: no answer (no run is serving the thread, or the notice was lost) changes nothing, the
 * message is in `thread_messages` and the run's safety-net poll or the next run finds it.
 */
@Injectable()
export class InterruptNotifier {
  constructor(@Inject(BUS) private readonly bus: Bus) {}

  async notify(threadId: string, messageId: string): Promise<void> {
    const request = { threadId, messageId };
    await this.bus
      .request(RunInterruptNotice.subjectFor(threadId), request, { timeoutMs: NOTICE_TIMEOUT_MS })
      .catch(() => undefined);
  }
}
