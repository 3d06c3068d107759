import { CLOCK, type Clock } from '@caravel/config';
import {
  CARAVEL_NAMESPACE,
  ScheduleThreadWakeup,
  TriggerReceivedV1,
  WAKEUP_BUDGET,
  repositoryRef,
  uuidV5,
  type ScheduleWakeupResponse,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { ThreadRepository, ThreadStopRepository, ThreadWakeupRepository } from '@caravel/db';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { z } from 'zod';
import { DEFAULT_WAKEUP_PROMPT, WAKEUP_ACTOR, wakeupDueAt, wakeupsLeft } from './wakeup-policy.js';

type WakeupRequest = ReturnType<typeof ScheduleThreadWakeup.parseRequest>;

/** The trigger id a wakeup fires with: stable, so firing twice starts or joins one run. */
export function wakeupTriggerId(wakeupId: string): string {
  return uuidV5(`wakeup-trigger:${wakeupId}`, CARAVEL_NAMESPACE);
}

/**
 * `schedule_thread_wakeup`: durable scheduled triggers. A run schedules one within the thread's
 * budget (at most {@link WAKEUP_BUDGET} since a person last wrote); the sweep fires due ones as a
 * synthetic `trigger.received`, which dispatch handles like any synthetic follow-up.
 */
@Injectable()
export class WakeupService {
  private readonly log = new Logger('Wakeups');

  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(ThreadWakeupRepository) private readonly wakeups: ThreadWakeupRepository,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ThreadStopRepository) private readonly stops: ThreadStopRepository,
  ) {}

  async schedule(request: WakeupRequest): Promise<ScheduleWakeupResponse> {
    const thread = await this.threads.get(request.threadId);
    if (!thread) throw new AppError('NOT_FOUND', `thread ${request.threadId} does not exist`);
    const now = this.clock.now();
    const { wakeup, counted } = await this.wakeups.scheduleWithin(
      {
        id: uuidV5(`wakeup:${request.runId}:${request.idempotencyKey}`, CARAVEL_NAMESPACE),
        threadId: request.threadId,
        runId: request.runId,
        prompt: request.prompt ?? DEFAULT_WAKEUP_PROMPT,
        dueAt: wakeupDueAt(now, request.delayMinutes),
        createdAt: now,
      },
      thread.lastHumanAt,
      WAKEUP_BUDGET,
    );
    if (!wakeup) {
      return {
        scheduled: false,
        reason: 'budget_exhausted',
        message: `This thread already has ${WAKEUP_BUDGET} wakeups since the last message from a person; no more until someone writes.`,
        remaining: 0,
      };
    }
    return {
      scheduled: true,
      wakeupId: wakeup.id,
      dueAt: wakeup.dueAt.toISOString(),
      remaining: wakeupsLeft(counted),
    };
  }

  /**
   * Fires every wakeup due now; returns how many fired. One scheduled before the thread's latest
   * stop is withdrawn instead: a person who stopped the thread asked for its work to end, later
   * work the agent planned included.
   */
  async fireDue(): Promise<number> {
    const due = await this.wakeups.due(this.clock.now());
    let fired = 0;
    for (const wakeup of due) {
      const stop = await this.stops.since(wakeup.threadId, wakeup.createdAt);
      if (stop) {
        await this.wakeups.withdraw(wakeup.id, this.clock.now());
        this.log.log(
          `wakeup ${wakeup.id} of thread ${wakeup.threadId} withdrawn: ${stop.requestedBy} stopped the thread after it was scheduled`,
        );
        continue;
      }
      const thread = await this.threads.get(wakeup.threadId);
      const repository = repositoryRef.safeParse(thread?.repository);
      await this.publisher.publish(
        TriggerReceivedV1,
        {
          threadId: wakeup.threadId,
          source: 'synthetic',
          deliveryId: `wakeup:${wakeup.id}`,
          author: WAKEUP_ACTOR,
          text: wakeup.prompt,
          trusted: true,
          ...(repository.success ? { repository: repository.data } : {}),
        } satisfies z.input<typeof TriggerReceivedV1.dataSchema>,
        { source: 'dispatch', id: wakeupTriggerId(wakeup.id) },
      );
      await this.wakeups.markFired(wakeup.id, this.clock.now());
      this.log.log(`woke thread ${wakeup.threadId} (wakeup ${wakeup.id})`);
      fired += 1;
    }
    return fired;
  }
}
