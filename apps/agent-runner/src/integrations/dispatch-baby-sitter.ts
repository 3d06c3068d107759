import { ManageBabySit, type ManageBabySitResponse } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import type { BabySitRequest, BabySitter } from '@caravel/tools';

/** How long a run waits for dispatch to answer. */
const BABY_SIT_REQUEST_TIMEOUT_MS = 15_000;

/**
 * `manage_baby_sit` for one run: dispatch's `ManageBabySit` request on the run's thread
 * (`dispatch.<threadId>.baby-sit`), which starts or stops the pull request's CI watch.
 */
export class DispatchBabySitter implements BabySitter {
  constructor(
    private readonly bus: Pick<Bus, 'request'>,
    private readonly run: { threadId: string; runId: string },
  ) {}

  async manage(request: BabySitRequest): Promise<ManageBabySitResponse> {
    const { threadId, runId } = this.run;
    const answer = await this.bus.request(
      ManageBabySit.subjectFor(threadId),
      { threadId, runId, ...request },
      { timeoutMs: BABY_SIT_REQUEST_TIMEOUT_MS },
    );
    return ManageBabySit.parseResponse(answer);
  }
}
