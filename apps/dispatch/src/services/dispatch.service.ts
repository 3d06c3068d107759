import {
  RunFinishedV1,
  RunStartedV1,
  StartRunV1,
  TriggerReceivedV1,
  causedBy,
  runIdForTrigger,
  type EnvelopeOf,
} from '@caravel/contracts';
import { RunRepository, ThreadRepository } from '@caravel/db';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable, Logger } from '@nestjs/common';

const SOURCE = 'dispatch';

/**
 * The thread state machine. A trigger creates (idempotently) the run it asks for; an idle thread
 * starts it at once, a busy one keeps it queued until the active run finishes.
 */
@Injectable()
export class DispatchService {
  private readonly log = new Logger('Dispatch');

  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(RunRepository) private readonly runs: RunRepository,
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
    });
    const { run } = await this.runs.create({
      id: runIdForTrigger(trigger.id),
      threadId,
      triggerId: trigger.id,
    });
    if (run.status !== 'queued') return; // a redelivery of a trigger whose run already went ahead
    const claimed = await this.threads.setStatus(threadId, {
      status: 'running',
      activeRunId: run.id,
      expectedActiveRunId: null,
    });
    const active = claimed ?? (await this.threads.get(threadId));
    if (active?.activeRunId !== run.id) {
      this.log.log(
        `thread ${threadId} is busy with ${active?.activeRunId ?? '?'}: run ${run.id} queued`,
      );
      return;
    }
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
      },
      { ...causedBy(trigger, SOURCE), id: run.id },
    );
  }

  async onRunStarted(event: EnvelopeOf<typeof RunStartedV1>): Promise<void> {
    const run = await this.runs.get(event.data.runId);
    if (run?.status === 'queued')
      await this.runs.markStarted(run.id, { runner: event.data.runner });
  }

  async onRunFinished(event: EnvelopeOf<typeof RunFinishedV1>): Promise<void> {
    const { threadId, runId, outcome, exitStatus, summary } = event.data;
    await this.runs.markFinished(runId, { status: outcome, exitStatus, summary });
    await this.threads.setStatus(threadId, {
      status: 'idle',
      activeRunId: null,
      expectedActiveRunId: runId,
    });
  }
}
