import { CLOCK, type Clock } from '@caravel/config';
import {
  CARAVEL_NAMESPACE,
  RunFinishedV1,
  StopThreadV1,
  uuidV5,
  type EnvelopeOf,
} from '@caravel/contracts';
import {
  BudgetPauseRepository,
  RunRepository,
  ThreadMessageRepository,
  ThreadRepository,
  ThreadStopRepository,
  type RunRow,
  type RunStatus,
} from '@caravel/db';
import { MessagePublisher, type Bus } from '@caravel/messaging';
import { BUS } from '@caravel/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { stoppedText } from '../replies/notice-texts.js';
import { RunNotifierService } from '../replies/run-notifier.service.js';
import { InterruptNotifier } from './interrupt-notifier.js';
import { stopStep, type StopStep } from './stop-policy.js';

/** The statuses of a run still to start or working. */
const WORKING: ReadonlySet<RunStatus> = new Set(['waiting', 'queued', 'running']);

/**
 * A person's request to stop a thread's work ({@link StopThreadV1}). Whatever waits behind the
 * active run (follow-ups not taken yet) is dropped, marked taken by the stopped run. A run no
 * runner works on yet is cancelled: its ending (`interrupted`) is published with the id its
 * runner would use, so the usual ending path frees the thread and admits the next run, and a
 * late start runs nothing. A run a runner works on is interrupted through the interrupt path: a
 * `stop` follow-up (what the runner's interrupt check reads) and the notice; it ends
 * `interrupted`, gets no failure reply, and the stop is marked taken when it ends, so nothing
 * starts after it. The source channel is told once per stopped run. A thread idle on a budget
 * pause has its pause withdrawn, so a later "continue with $5 more" continues nothing.
 */
@Injectable()
export class ThreadStopService {
  private readonly log = new Logger('ThreadStop');

  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(RunRepository) private readonly runs: RunRepository,
    @Inject(ThreadMessageRepository) private readonly messages: ThreadMessageRepository,
    @Inject(InterruptNotifier) private readonly interrupts: InterruptNotifier,
    @Inject(RunNotifierService) private readonly notifier: RunNotifierService,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(BudgetPauseRepository) private readonly pauses: BudgetPauseRepository,
    @Inject(ThreadStopRepository) private readonly stops: ThreadStopRepository,
  ) {}

  async onStop(request: EnvelopeOf<typeof StopThreadV1>): Promise<StopStep> {
    const { threadId, source, requestedBy } = request.data;
    const who = `${source}:${requestedBy.externalId}`;
    // One stop row per request: a redelivered request finds its own row and finishes its work.
    const stopId = uuidV5(`stop:${threadId}:${request.data.requestId}`, CARAVEL_NAMESPACE);
    // Kept even when nothing runs: a trigger received before this stop and handled after it
    // (its consumer is behind) must start nothing either.
    await this.stops.record({ threadId, at: new Date(request.occurredAt), by: who });
    const thread = await this.threads.get(threadId);
    const active = thread?.activeRunId ? await this.runs.get(thread.activeRunId) : null;
    const stops = await this.messages.waiting(threadId, ['stop']);
    const step = stopStep({
      activeStatus: active?.status ?? null,
      alreadyStopping: stops.some((stop) => stop.id !== stopId),
      runnerHoldsThread: active?.status === 'queued' && (await this.runnerHolds(threadId)),
    });
    if (step === 'nothing' || !active) {
      // No run works on the thread (none holds it, or the one that does has ended): a budget
      // pause is all a stop can still end.
      if (!active || !WORKING.has(active.status)) await this.withdrawPauses(threadId, who);
      else this.log.log(`thread ${threadId}: stop from ${who}: nothing to stop`);
      return 'nothing';
    }
    await this.messages.take(threadId, active.id, ['message', 'command']);
    if (step === 'cancel') await this.cancel(active, who);
    else await this.interrupt(active, stopId, who);
    this.log.log(`thread ${threadId}: run ${active.id} stopped (${step}) by ${who}`);
    await this.notifier.announce(
      threadId,
      uuidV5(`stopped:${active.id}`, CARAVEL_NAMESPACE),
      stoppedText(),
    );
    return step;
  }

  /** An idle thread's budget pauses: withdrawn, and the channel told once per paused run. */
  private async withdrawPauses(threadId: string, who: string): Promise<void> {
    const withdrawn = await this.pauses.withdraw({ threadId, by: who, at: this.clock.now() });
    if (withdrawn.length === 0) {
      this.log.log(`thread ${threadId}: stop from ${who}: nothing to stop`);
      return;
    }
    this.log.log(
      `thread ${threadId}: stop from ${who}: budget pause of ${withdrawn.join(', ')} withdrawn`,
    );
    for (const runId of withdrawn) {
      await this.notifier.announce(
        threadId,
        uuidV5(`stopped:${runId}`, CARAVEL_NAMESPACE),
        stoppedText(),
      );
    }
  }

  /** Ends a run that never started, the way the reconcile sweep ends a stuck one. */
  private async cancel(run: RunRow, who: string): Promise<void> {
    const summary = `stopped by ${who} before it started`;
    await this.publisher.publish(
      RunFinishedV1,
      {
        threadId: run.threadId,
        runId: run.id,
        outcome: 'interrupted',
        exitStatus: 'exit_interrupted',
        summary,
      },
      { source: 'dispatch', id: uuidV5(`finished:${run.id}`, CARAVEL_NAMESPACE) },
    );
    // Recorded at once too: a runner that picks the start up now finds the run ended.
    await this.runs.markFinished(run.id, {
      status: 'interrupted',
      exitStatus: 'exit_interrupted',
      summary,
      at: this.clock.now(),
    });
  }

  private async interrupt(run: RunRow, stopId: string, who: string): Promise<void> {
    await this.messages.enqueue({
      id: stopId,
      threadId: run.threadId,
      author: who,
      text: 'stop',
      trusted: true,
      kind: 'stop',
      delivery: 'interrupt',
      receivedAt: this.clock.now(),
    });
    await this.interrupts.notify(run.threadId, stopId);
  }

  private async runnerHolds(threadId: string): Promise<boolean> {
    const lease = await this.bus.leases.get(`thread.${threadId}`);
    return lease !== null && lease.expiresAt > this.clock.now();
  }
}
