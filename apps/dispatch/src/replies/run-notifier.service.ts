import { CLOCK, type Clock } from '@caravel/config';
import {
  repositoryRef,
  type RunOutcome,
  type RunUnpublished,
  type TriggerSource,
} from '@caravel/contracts';
import { RunNoticeRepository, ThreadRepository, type RunNoticeKind } from '@caravel/db';
import { isAppError } from '@caravel/errors';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { failureText, queuedText } from './notice-texts.js';
import {
  REPLY_PORT,
  type ReplyDestination,
  type ReplyOutcome,
  type ReplyPort,
} from './reply.port.js';

/** How long a receipt may take before the trigger goes on without it. */
const RECEIPT_TIMEOUT_MS = 10_000;

/** Only a failed run gets a reply of dispatch's own: its runner may not have said anything. */
function needsFailureReply(outcome: RunOutcome): boolean {
  switch (outcome) {
    case 'failed':
      return true;
    case 'completed':
    case 'interrupted':
      return false;
  }
}

/**
 * What dispatch itself tells a thread's source channel about a run: that it failed, or where it
 * waits in the queue. Each at most once per run (recorded after posting; the reply channel's own
 * idempotency key covers a crash in between).
 */
@Injectable()
export class RunNotifierService {
  private readonly log = new Logger('RunNotifier');

  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(RunNoticeRepository) private readonly notices: RunNoticeRepository,
    @Inject(REPLY_PORT) private readonly replies: ReplyPort,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** One failure reply for a failed run; interrupted and completed runs get none. */
  async runEnded(end: {
    threadId: string;
    runId: string;
    outcome: RunOutcome;
    exitStatus: string;
    summary: string;
    /** Why its changes are not in its pull request, as its runner coded it. */
    unpublished?: RunUnpublished | undefined;
  }): Promise<void> {
    if (!needsFailureReply(end.outcome)) return;
    const text = failureText(end.exitStatus, end.summary, end.unpublished);
    await this.once(end.threadId, end.runId, 'failure', text);
  }

  /**
   * Acknowledges a trigger at once with 👀 on the message it came from (GitHub, Slack, Linear).
   * Best effort: the request is taken whatever the reaction does, so a failure is logged, never
   * thrown (the trigger is not handled again for it).
   */
  async received(trigger: {
    threadId: string;
    source: TriggerSource;
    replyTo: Record<string, string | number>;
    repository?: { owner: string; name: string } | undefined;
  }): Promise<void> {
    const { source, replyTo, repository } = trigger;
    const destination = {
      source,
      replyTo,
      ...(repository ? { repository: { owner: repository.owner, name: repository.name } } : {}),
    };
    let timer: NodeJS.Timeout | undefined;
    // A source that does not answer must not hold the trigger (and its run) back.
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('no answer in 10 s')), RECEIPT_TIMEOUT_MS);
    });
    await Promise.race([this.replies.acknowledge(destination), late])
      .catch((error: unknown) => {
        const code = isAppError(error) ? error.code : 'error';
        this.log.warn(
          `thread ${trigger.threadId}: no 👀 on the request (${code}): ${String(error)}`,
        );
      })
      .finally(() => clearTimeout(timer));
  }

  /** Tells a run's source channel where it waits, once. */
  async queued(threadId: string, runId: string, position: number): Promise<void> {
    await this.once(threadId, runId, 'queue_position', queuedText(position));
  }

  /**
   * Posts `text` in a thread's source channel once per `key` (a UUID: the channel's idempotency
   * key, so asking again posts nothing new); what became of it, or null without a thread.
   */
  async announce(threadId: string, key: string, text: string): Promise<ReplyOutcome | null> {
    const destination = await this.destination(threadId);
    return destination ? this.replies.reply(destination, key, text) : null;
  }

  private async once(
    threadId: string,
    runId: string,
    kind: RunNoticeKind,
    text: string,
  ): Promise<void> {
    if (await this.notices.sent(runId, kind)) return;
    const destination = await this.destination(threadId);
    if (!destination) return;
    const outcome = await this.replies.reply(destination, runId, text);
    if (outcome === 'posted') await this.notices.record(runId, kind, this.clock.now());
  }

  private async destination(threadId: string): Promise<ReplyDestination | null> {
    const thread = await this.threads.get(threadId);
    if (!thread) return null;
    const repository = repositoryRef.safeParse(thread.repository);
    return {
      source: thread.source,
      replyTo: thread.replyTo,
      threadId,
      ...(repository.success
        ? { repository: { owner: repository.data.owner, name: repository.data.name } }
        : {}),
    };
  }
}
