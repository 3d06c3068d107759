import {
  CARAVEL_NAMESPACE,
  RunFinishedV1,
  RunStartedV1,
  StartRunV1,
  TriggerReceivedV1,
  causedBy,
  runIdForTrigger,
  uuidV5,
  repositoryRef,
  threadOptions,
  type EnvelopeHeader,
  type EnvelopeOf,
  type RepositoryRef,
  type ThreadOptions,
} from '@caravel/contracts';
import {
  RunRepository,
  ThreadMessageRepository,
  ThreadRepository,
  type RunRow,
  type ThreadRow,
} from '@caravel/db';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { followUpDelivery } from './follow-up-policy.js';
import { followUpPrompt } from './follow-up-prompt.js';

const SOURCE = 'dispatch';

/** What every run of a thread shares: its repository and its own settings (model, effort). */
function threadSettings(thread: ThreadRow | null): {
  repository?: RepositoryRef;
  options: ThreadOptions;
} {
  const repository = repositoryRef.safeParse(thread?.repository);
  const options = threadOptions.safeParse(thread?.options ?? {});
  return {
    ...(repository.success ? { repository: repository.data } : {}),
    options: options.success ? options.data : {},
  };
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
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
  ) {}

  async onTrigger(trigger: EnvelopeOf<typeof TriggerReceivedV1>): Promise<void> {
    const { threadId, source, repository, text, author } = trigger.data;
    await this.threads.upsert({
      id: threadId,
      source,
      title: text.slice(0, 120),
      repositoryOwner: repository?.owner ?? null,
      repositoryName: repository?.name ?? null,
      repository: repository ?? null,
      options: trigger.data.options,
    });
    const { run } = await this.runs.create({
      id: runIdForTrigger(trigger.id),
      threadId,
      triggerId: trigger.id,
    });
    if (run.status === 'merged') return this.join(trigger, run);
    if (run.status !== 'queued') return; // a redelivery of a trigger whose run already went ahead
    if (await this.claim(threadId, run.id)) {
      // The command's id is the run's, so a redelivered trigger re-publishes a deduplicated command.
      await this.publisher.publish(
        StartRunV1,
        {
          threadId,
          runId: run.id,
          triggerId: trigger.id,
          prompt: text,
          requestedBy: author,
          ...(repository ? { repository } : {}),
          options: trigger.data.options,
          source: trigger.data.source,
          replyTo: trigger.data.replyTo,
        },
        { ...causedBy(trigger, SOURCE), id: run.id },
      );
      return;
    }
    await this.join(trigger, run);
  }

  async onRunStarted(event: EnvelopeOf<typeof RunStartedV1>): Promise<void> {
    if (event.data.attemptOf) return; // an attempt of a retry-and-select run: its run owns the thread
    const run = await this.runs.get(event.data.runId);
    if (run?.status === 'queued')
      await this.runs.markStarted(run.id, { runner: event.data.runner });
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
    await this.startFollowUp(threadId, event);
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
    await this.messages.enqueue({
      id: trigger.id,
      threadId,
      author: `${source}:${author.externalId}`,
      text,
      trusted,
      delivery: followUpDelivery(source),
    });
    if (run.status !== 'merged') {
      await this.runs.markFinished(run.id, { status: 'merged', summary: 'joined the active run' });
      this.log.log(`thread ${threadId} is busy: message ${trigger.id} joins its active run`);
    }
    // The active run may have ended between the claim and the enqueue: nobody would take it then.
    await this.startFollowUp(threadId, trigger);
  }

  /** Starts a run for the follow-ups no run took, when the thread is free. */
  private async startFollowUp(threadId: string, cause: EnvelopeHeader): Promise<void> {
    const waiting = await this.messages.waiting(threadId);
    const first = waiting[0];
    if (!first) return;
    const runId = followUpRunId(first.id);
    const current = await this.threads.get(threadId);
    if (current?.activeRunId && current.activeRunId !== runId) return; // the active run takes them
    const { run } = await this.runs.create({ id: runId, threadId, triggerId: runId });
    if (run.status !== 'queued') return;
    if (!(await this.claim(threadId, runId))) {
      await this.runs.markFinished(runId, { status: 'merged', summary: 'the thread became busy' });
      return;
    }
    const taken = await this.messages.take(threadId, runId);
    if (taken.length === 0) {
      await this.runs.markFinished(runId, { status: 'merged', summary: 'nothing left to do' });
      await this.threads.setStatus(threadId, {
        status: 'idle',
        activeRunId: null,
        expectedActiveRunId: runId,
      });
      return;
    }
    await this.publisher.publish(
      StartRunV1,
      {
        threadId,
        runId,
        triggerId: first.id,
        prompt: followUpPrompt(taken),
        requestedBy: { externalId: first.author },
        ...threadSettings(current),
      },
      { ...causedBy(cause, SOURCE), id: runId },
    );
  }
}
