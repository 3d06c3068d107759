import { triggerSource, type DataOf, type StartRunV1 } from '@caravel/contracts';
import type { MessageQueue } from '@caravel/middleware';
import type { RunPeople } from '@caravel/tools';

/**
 * Who asked for the run, as `source:id` (the identity plan approval and ownership use). A run of
 * follow-ups already names its first author that way.
 */
export function requesterOf(
  data: Pick<DataOf<typeof StartRunV1>, 'source' | 'requestedBy'>,
): string {
  const id = data.requestedBy.externalId;
  // A run of follow-ups names its first author as `source:id` already, whatever the thread's source.
  if (triggerSource.options.some((source) => id.startsWith(`${source}:`))) return id;
  return `${data.source ?? 'synthetic'}:${id}`;
}

/**
 * Who a run works for, as its tools see it: the thread's owner, and the person the run is
 * answering. That is whoever asked for the run, then the author of each later message the run
 * takes, so a plan approval or saved instructions count for the person who actually wrote them,
 * not for whoever started the run.
 */
export class RunPeopleTracker implements RunPeople {
  private speaker: string | null;

  constructor(
    requester: string | null,
    readonly owner: string | null,
  ) {
    this.speaker = requester;
  }

  /** The person the run is answering now. */
  get requester(): string | null {
    return this.speaker;
  }

  /** `queue`, noting the author of every message the run takes (a person's command is no request). */
  following(queue: MessageQueue): MessageQueue {
    return {
      drain: async (threadId, inConversation) => {
        const drained = await queue.drain(threadId, inConversation);
        for (const message of drained) if (!message.metadata) this.speaker = message.author;
        return drained;
      },
    };
  }
}
