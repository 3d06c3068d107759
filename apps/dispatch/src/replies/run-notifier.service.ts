import { repositoryRef, type RunOutcome } from '@caravel/contracts';
import { RunNoticeRepository, ThreadRepository, type RunNoticeKind } from '@caravel/db';
import { Inject, Injectable } from '@nestjs/common';
import { DISPATCH_CLOCK, type Clock } from '../dispatch.clock.js';
import { failureText, queuedText } from './notice-texts.js';
import { REPLY_PORT, type ReplyDestination, type ReplyPort } from './reply.port.js';

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
  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(RunNoticeRepository) private readonly notices: RunNoticeRepository,
    @Inject(REPLY_PORT) private readonly replies: ReplyPort,
    @Inject(DISPATCH_CLOCK) private readonly clock: Clock,
  ) {}

  /** One failure reply for a failed run; interrupted and completed runs get none. */
  async runEnded(end: {
    threadId: string;
    runId: string;
    outcome: RunOutcome;
    exitStatus: string;
    summary: string;
  }): Promise<void> {
    if (!needsFailureReply(end.outcome)) return;
    await this.once(end.threadId, end.runId, 'failure', failureText(end.exitStatus, end.summary));
  }

  /** Tells a run's source channel where it waits, once. */
  async queued(threadId: string, runId: string, position: number): Promise<void> {
    await this.once(threadId, runId, 'queue_position', queuedText(position));
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
      ...(repository.success
        ? { repository: { owner: repository.data.owner, name: repository.data.name } }
        : {}),
    };
  }
}
