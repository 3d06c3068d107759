import { CLOCK, type Clock } from '@caravel/config';
import {
  CARAVEL_NAMESPACE,
  RunFinishedV1,
  RunStartedV1,
  RunStepV1,
  StartRunV1,
  TriggerReceivedV1,
  causedBy,
  runIdForTrigger,
  uuidV5,
  repositoryRef,
  threadOptions,
  type DataOf,
  type EnvelopeHeader,
  type EnvelopeOf,
  type RepositoryRef,
  type ThreadOptions,
  type TriggerSource,
} from '@caravel/contracts';
import {
  RunRepository,
  ThreadMessageRepository,
  ThreadRepository,
  ThreadStopRepository,
  type RunRow,
  type ThreadRow,
  type ThreadStopRow,
} from '@caravel/db';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { stoppedText } from '../replies/notice-texts.js';
import { RunNotifierService } from '../replies/run-notifier.service.js';
import { AdmissionService, repositoryKey } from './admission.service.js';
import { followUpDelivery } from './follow-up-policy.js';
import { followUpPrompt } from './follow-up-prompt.js';
import { InterruptNotifier } from './interrupt-notifier.js';
import { triggerStep } from './trigger-policy.js';
import { isHumanTrigger } from './wakeup-policy.js';

const SOURCE = 'dispatch';

/**
 * What every run of a thread shares: its repository, its own settings (model, effort) and where
 * it answers.
 */
function threadSettings(thread: ThreadRow | null): {
  repository?: RepositoryRef;
  options: ThreadOptions;
  source?: TriggerSource;
  replyTo?: Record<string, string | number>;
} {
  const repository = repositoryRef.safeParse(thread?.repository);
  const options = threadOptions.safeParse(thread?.options ?? {});
  return {
    ...(repository.success ? { repository: repository.data } : {}),
    options: options.success ? options.data : {},
    ...(thread ? { source: thread.source, replyTo: thread.replyTo } : {}),
  };
}

/** A start command as a request for a slot in the run queue. */
function slotFor(command: DataOf<typeof StartRunV1>, userKey: string) {
  return { command, repositoryKey: repositoryKey(command.repository), userKey };
}

/** The run that picks up follow-ups nobody took: one per first waiting message. */
export function followUpRunId(firstMessageId: string): string {
  return uuidV5(`follow-up:${firstMessageId}`, CARAVEL_NAMESPACE);
}

/**
 * The thread state machine. A trigger on an idle thread starts its run. A trigger on a busy thread
 * joins the active run: its text is queued, and by {@link followUpDelivery} the run either injects
 * it before its next model call or is interrupted by it; whatever the run did not take starts the
 * thread's next run when it ends (an interrupted run's history included).
 */
@Injectable()
export class DispatchService {
  private readonly log = new Logger('Dispatch');

  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(RunRepository) private readonly runs: RunRepository,
    @Inject(ThreadMessageRepository) private readonly messages: ThreadMessageRepository,
    @Inject(AdmissionService) private readonly admission: AdmissionService,
    @Inject(RunNotifierService) private readonly notifier: RunNotifierService,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(InterruptNotifier) private readonly interrupts: InterruptNotifier,
    @Inject(ThreadStopRepository) private readonly stops: ThreadStopRepository,
  ) {}

  async onTrigger(trigger: EnvelopeOf<typeof TriggerReceivedV1>): Promise<void> {
    const { threadId, source, repository, text } = trigger.data;
    const thread = await this.threads.upsert({
      id: threadId,
      source,
      title: text.slice(0, 120),
      repositoryOwner: repository?.owner ?? null,
      repositoryName: repository?.name ?? null,
      repository: repository ?? null,
      options: trigger.data.options,
      replyTo: trigger.data.replyTo,
      humanAt: isHumanTrigger(trigger.data) ? new Date(trigger.occurredAt) : null,
    });
    const { run, created } = await this.runs.create({
      id: runIdForTrigger(trigger.id),
      threadId,
      triggerId: trigger.id,
      createdAt: this.clock.now(),
    });
    // A stop asked after this trigger arrived but handled before it (the two are separate
    // consumers): the trigger starts and joins nothing, as if it had been handled first.
    if (run.status === 'queued' && thread.activeRunId !== run.id) {
      const stop = await this.stops.since(threadId, new Date(trigger.occurredAt));
      if (stop) return this.stoppedBeforeHandled(trigger, run, stop);
    }
    // 👀 on the message that asked, once per trigger, before any run starts or joins.
    if (created && isHumanTrigger(trigger.data)) await this.notifier.received(trigger.data);
    switch (triggerStep(run.status, trigger.data.kind)) {
      case 'claim':
        return this.startOrJoin(trigger, thread, run);
      case 'join':
        return this.join(trigger, run);
      case 'none':
        return;
    }
  }

  async onRunStarted(event: EnvelopeOf<typeof RunStartedV1>): Promise<void> {
    if (event.data.attemptOf) return; // an attempt of a retry-and-select run: its run owns the thread
    const run = await this.runs.get(event.data.runId);
    if (run?.status === 'queued')
      await this.runs.markStarted(run.id, { runner: event.data.runner, at: this.clock.now() });
  }

  /** A step is a sign of life of its run. */
  async onRunStep(event: EnvelopeOf<typeof RunStepV1>): Promise<void> {
    await this.runs.touch(event.data.runId, this.clock.now());
  }

  async onRunFinished(event: EnvelopeOf<typeof RunFinishedV1>): Promise<void> {
    if (event.data.attemptOf) return; // only the run that selects among its attempts ends the turn
    const { threadId, runId, outcome, exitStatus, summary } = event.data;
    await this.runs.markFinished(runId, { status: outcome, exitStatus, summary });
    await this.threads.setStatus(threadId, {
      status: 'idle',
      activeRunId: null,
      expectedActiveRunId: runId,
    });
    // A stop that asked this run to end is done with: it must not interrupt a later run.
    await this.messages.take(threadId, runId, ['stop']);
    // What the run claimed and never settled (its runner died and the run was ended without it,
    // or its settle failed) would stay its own for good: its messages go back to waiting for the
    // follow-up run below, its commands are taken (they ran, or may have). A no-op after a settle.
    await this.messages.settle(threadId, runId, []);
    await this.startFollowUp(threadId, event);
    await this.admission.admitWaiting(causedBy(event, SOURCE));
    const { unpublished } = event.data;
    await this.notifier.runEnded({ threadId, runId, outcome, exitStatus, summary, unpublished });
  }

  /** Ends the trigger's run unstarted, says so in the thread once, and queues none of its text. */
  private async stoppedBeforeHandled(
    trigger: EnvelopeOf<typeof TriggerReceivedV1>,
    run: RunRow,
    stop: ThreadStopRow,
  ): Promise<void> {
    const { threadId } = trigger.data;
    await this.runs.markFinished(run.id, {
      status: 'interrupted',
      exitStatus: 'exit_interrupted',
      summary: `stopped by ${stop.requestedBy} before it started`,
      at: this.clock.now(),
    });
    this.log.log(
      `thread ${threadId}: trigger ${trigger.id} was stopped by ${stop.requestedBy} before it was handled; nothing starts`,
    );
    await this.notifier.announce(
      threadId,
      uuidV5(`stopped:${run.id}`, CARAVEL_NAMESPACE),
      stoppedText(),
    );
  }

  /** The trigger's run asks for a slot once it holds the thread; a busy thread it joins instead. */
  private async startOrJoin(
    trigger: EnvelopeOf<typeof TriggerReceivedV1>,
    thread: ThreadRow,
    run: RunRow,
  ): Promise<void> {
    const { threadId, source, text, author } = trigger.data;
    if (!(await this.claim(threadId, run.id))) return this.join(trigger, run);
    // The command's id is the run's, so a redelivered trigger re-publishes a deduplicated command.
    const command = {
      threadId,
      runId: run.id,
      triggerId: trigger.id,
      prompt: text,
      requestedBy: author,
      ...threadSettings(thread),
      ...(trigger.data.subject ? { subject: trigger.data.subject } : {}),
    };
    await this.admission.request(
      slotFor(command, `${source}:${author.externalId}`),
      causedBy(trigger, SOURCE),
    );
  }

  /** True when the thread is (now) this run's: claimed idle, or already held by it. */
  private async claim(threadId: string, runId: string): Promise<boolean> {
    const claimed = await this.threads.setStatus(threadId, {
      status: 'running',
      activeRunId: runId,
      expectedActiveRunId: null,
    });
    const active = claimed ?? (await this.threads.get(threadId));
    return active?.activeRunId === runId;
  }

  /** The trigger's text joins the thread's active run (or the next one). */
  private async join(trigger: EnvelopeOf<typeof TriggerReceivedV1>, run: RunRow): Promise<void> {
    const { threadId, source, author, text, trusted } = trigger.data;
    const delivery =
      trigger.data.kind === 'command' || (await this.activeRunWaits(threadId))
        ? 'inject'
        : followUpDelivery(source);
    await this.messages.enqueue({
      id: trigger.id,
      threadId,
      author: `${source}:${author.externalId}`,
      text,
      trusted,
      kind: trigger.data.kind,
      delivery,
    });
    // The run stops at once rather than at its next poll.
    if (delivery === 'interrupt') await this.interrupts.notify(threadId, trigger.id);
    if (run.status !== 'merged') {
      await this.runs.markFinished(run.id, { status: 'merged', summary: 'joined the active run' });
      this.log.log(`thread ${threadId} is busy: message ${trigger.id} joins its active run`);
    }
    // The active run may have ended between the claim and the enqueue: nobody would take it then.
    await this.startFollowUp(threadId, trigger);
  }

  /** A run that has not started yet takes new messages before its first model call. */
  private async activeRunWaits(threadId: string): Promise<boolean> {
    const activeRunId = (await this.threads.get(threadId))?.activeRunId;
    return activeRunId ? (await this.runs.get(activeRunId))?.status === 'waiting' : false;
  }

  /** Starts a run for the follow-ups no run took, when the thread is free. */
  private async startFollowUp(threadId: string, cause: EnvelopeHeader): Promise<void> {
    const waiting = await this.messages.waiting(threadId, ['message']);
    const first = waiting[0];
    if (!first) return;
    const runId = followUpRunId(first.id);
    const current = await this.threads.get(threadId);
    if (current?.activeRunId && current.activeRunId !== runId) return; // the active run takes them
    const { run } = await this.runs.create({
      id: runId,
      threadId,
      triggerId: runId,
      createdAt: this.clock.now(),
    });
    if (run.status !== 'queued') return;
    if (!(await this.claim(threadId, runId))) {
      await this.runs.markFinished(runId, { status: 'merged', summary: 'the thread became busy' });
      return;
    }
    const taken = await this.messages.take(threadId, runId, ['message']);
    if (taken.length === 0) {
      await this.runs.markFinished(runId, { status: 'merged', summary: 'nothing left to do' });
      await this.threads.setStatus(threadId, {
        status: 'idle',
        activeRunId: null,
        expectedActiveRunId: runId,
      });
      return;
    }
    const command = {
      threadId,
      runId,
      triggerId: first.id,
      prompt: followUpPrompt(taken),
      requestedBy: { externalId: first.author },
      ...threadSettings(current),
    };
    await this.admission.request(slotFor(command, first.author), causedBy(cause, SOURCE));
  }
}
