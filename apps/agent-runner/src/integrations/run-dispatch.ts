import {
  ManageBabySit,
  ScheduleThreadWakeup,
  type ManageBabySitResponse,
  type ScheduleWakeupResponse,
} from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import type { BabySitRequest, BabySitter, WakeupRequest, WakeupScheduler } from '@caravel/tools';

/** How long a run waits for dispatch to answer one of its requests. */
const DISPATCH_REQUEST_TIMEOUT_MS = 15_000;

/** What a run asks dispatch: a request's subject on a thread and its answer's parser. */
interface DispatchRequest<R> {
  subjectFor(threadId: string): string;
  parseResponse(raw: unknown): R;
}

/**
 * One run's requests to dispatch, on the run's thread (`dispatch.<threadId>.<op>`), each answer
 * validated by its contract: `schedule_thread_wakeup` (`ScheduleThreadWakeup`, which stores the
 * wakeup within the thread's budget) and `manage_baby_sit` (`ManageBabySit`, which starts or
 * stops the pull request's CI watch).
 */
export class RunDispatch implements WakeupScheduler, BabySitter {
  constructor(
    private readonly bus: Pick<Bus, 'request'>,
    private readonly run: { threadId: string; runId: string },
  ) {}

  schedule(request: WakeupRequest): Promise<ScheduleWakeupResponse> {
    return this.ask(ScheduleThreadWakeup, request);
  }

  manage(request: BabySitRequest): Promise<ManageBabySitResponse> {
    return this.ask(ManageBabySit, request);
  }

  private async ask<R>(definition: DispatchRequest<R>, request: object): Promise<R> {
    const { threadId, runId } = this.run;
    const answer = await this.bus.request(
      definition.subjectFor(threadId),
      { threadId, runId, ...request },
      { timeoutMs: DISPATCH_REQUEST_TIMEOUT_MS },
    );
    return definition.parseResponse(answer);
  }
}
