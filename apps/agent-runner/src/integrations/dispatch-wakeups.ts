import { ScheduleThreadWakeup, type ScheduleWakeupResponse } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import type { WakeupRequest, WakeupScheduler } from '@caravel/tools';

/** How long a run waits for dispatch to confirm a wakeup. */
const WAKEUP_REQUEST_TIMEOUT_MS = 15_000;

/**
 * `schedule_thread_wakeup` for one run: dispatch's `ScheduleThreadWakeup` request on the run's
 * thread (`dispatch.<threadId>.wakeup`), which stores the wakeup within the thread's budget.
 */
export class DispatchWakeups implements WakeupScheduler {
  constructor(
    private readonly bus: Pick<Bus, 'request'>,
    private readonly run: { threadId: string; runId: string },
  ) {}

  async schedule(request: WakeupRequest): Promise<ScheduleWakeupResponse> {
    const { threadId, runId } = this.run;
    const answer = await this.bus.request(
      ScheduleThreadWakeup.subjectFor(threadId),
      { threadId, runId, ...request },
      { timeoutMs: WAKEUP_REQUEST_TIMEOUT_MS },
    );
    return ScheduleThreadWakeup.parseResponse(answer);
  }
}
