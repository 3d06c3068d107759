import { triggerSource, type DataOf, type StartRunV1 } from '@caravel/contracts';
import type { MessageQueue } from '@caravel/middleware';
import { renderedAuthorsIn } from '@caravel/middleware/queued-message';
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
  /** What each person wrote in the messages this run took, normalised ({@link normalised}). */
  private readonly words = new Map<string, string[]>();

  /**
   * @param request The text that started the run: the requester's words, unless it renders
   *   follow-ups by others too (then nobody's: it cannot be told whose words are whose).
   */
  constructor(
    requester: string | null,
    readonly owner: string | null,
    request?: string,
  ) {
    this.speaker = requester;
    const someoneElse = (author: string) => author !== requester;
    if (
      requester !== null &&
      request !== undefined &&
      !renderedAuthorsIn(request).some(someoneElse)
    )
      this.heard(requester, request);
  }

  wrote(person: string, words: string): boolean {
    const quote = normalised(words);
    return quote !== '' && (this.words.get(person) ?? []).some((text) => text.includes(quote));
  }

  private heard(person: string, text: string): void {
    this.words.set(person, [...(this.words.get(person) ?? []), normalised(text)]);
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
        for (const message of drained) {
          if (message.metadata) continue;
          this.speaker = message.author;
          this.heard(message.author, message.text);
        }
        return drained;
      },
    };
  }
}

/** `text` as a quote of it is compared: case and runs of whitespace aside. */
function normalised(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}
