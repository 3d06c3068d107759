import { CLOCK, type Clock } from '@caravel/config';
import { StartRunV1, type DataOf, type EnvelopeOptions } from '@caravel/contracts';
import { RunQueueRepository, type Executor, type RunQueueRow } from '@caravel/db';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DISPATCH_CONFIG, type DispatchConfig } from '../dispatch.config.js';
import { RunNotifierService } from '../replies/run-notifier.service.js';
import { admissible, queuePosition, type AdmissionLimits } from './fair-share.js';

/** A run asking for a slot: its start command and the keys fair share counts it by. */
export interface RunRequest {
  command: DataOf<typeof StartRunV1>;
  repositoryKey: string;
  userKey: string;
}

/** The fair-share key of a repository (`owner/name`), or of work without one. */
export function repositoryKey(repository: { owner: string; name: string } | undefined): string {
  return repository ? `${repository.owner}/${repository.name}` : '(none)';
}

/**
 * The platform's run queue. Every run asks for a slot: it starts at once while the platform and
 * its repository are under their limits and nobody waits ahead, else it waits (durably, in
 * `run_queue`) and its channel is told its position. Slots are handed out in fair-share order
 * when runs end and on every sweep; nothing is rejected or evicted. Decisions are taken under
 * one database lock, so replicas never admit past a limit.
 */
@Injectable()
export class AdmissionService {
  private readonly log = new Logger('Admission');
  private readonly limits: AdmissionLimits;

  constructor(
    @Inject(RunQueueRepository) private readonly queue: RunQueueRepository,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(RunNotifierService) private readonly notifier: RunNotifierService,
    @Inject(DISPATCH_CONFIG) config: DispatchConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.limits = {
      maxActive: config.dispatch.maxActiveRuns,
      maxActivePerRepository: config.dispatch.maxActiveRunsPerRepository,
    };
  }

  /**
   * Queues a run that holds its thread and admits what fits. Its command is published when it
   * is admitted, once: a repeated request (a trigger delivered again, the same comment under a
   * new delivery id) publishes nothing more. A run left waiting is told its position once.
   */
  async request(run: RunRequest, cause: Omit<EnvelopeOptions, 'id'>): Promise<void> {
    const runId = run.command.runId;
    const { admitted, position, alreadyAdmitted } = await this.queue.exclusive(async (trx) => {
      await this.queue.enqueue(
        {
          runId,
          threadId: run.command.threadId,
          repositoryKey: run.repositoryKey,
          userKey: run.userKey,
          command: run.command,
          enqueuedAt: this.clock.now(),
        },
        trx,
      );
      const entry = await this.queue.get(runId, trx);
      if (entry?.admittedAt) return { admitted: [], position: 0, alreadyAdmitted: entry };
      await this.queue.park(runId, trx);
      return this.admitFitting(trx, runId);
    });
    if (alreadyAdmitted) await this.publish(alreadyAdmitted, cause);
    await this.publishAll(admitted, cause);
    if (position > 0) {
      this.log.log(`run ${runId} waits for a slot (position ${position})`);
      await this.notifier.queued(run.command.threadId, runId, position);
    }
  }

  /** Admits the waiting runs that fit now, in fair-share order, and starts them. */
  async admitWaiting(cause: Omit<EnvelopeOptions, 'id'>): Promise<number> {
    const { admitted } = await this.queue.exclusive((trx) => this.admitFitting(trx));
    await this.publishAll(admitted, cause);
    return admitted.length;
  }

  private async admitFitting(
    trx: Executor,
    watched?: string,
  ): Promise<{ admitted: RunQueueRow[]; position: number; alreadyAdmitted?: undefined }> {
    const snapshot = await this.queue.snapshot(trx);
    const admitted: RunQueueRow[] = [];
    for (const run of admissible(snapshot, this.limits)) {
      if (await this.queue.admit(run.runId, this.clock.now(), trx)) admitted.push(run);
    }
    const left = {
      ...snapshot,
      waiting: snapshot.waiting.filter((w) => !admitted.some((a) => a.runId === w.runId)),
    };
    return { admitted, position: watched ? queuePosition(left, watched) : 0 };
  }

  private async publishAll(
    runs: readonly RunQueueRow[],
    cause: Omit<EnvelopeOptions, 'id'>,
  ): Promise<void> {
    for (const run of runs) await this.publish(run, cause);
  }

  /**
   * Publishes an admitted run's start command unless it was published before. The publication
   * is claimed in the database first, so no second start is ever published for a run (the bus's
   * duplicate window is minutes long; a Slack retry comes hours later); a claim whose publish
   * failed is given back. A process that dies between claim and publish leaves a run that never
   * starts: the reconcile sweep ends it (`exit_not_started`).
   */
  private async publish(run: RunQueueRow, cause: Omit<EnvelopeOptions, 'id'>): Promise<void> {
    if (!(await this.queue.claimStartPublication(run.runId, this.clock.now()))) {
      this.log.log(`run ${run.runId}: its start was published before, not again`);
      return;
    }
    const command = StartRunV1.dataSchema.parse(run.command);
    try {
      await this.publisher.publish(StartRunV1, command, { ...cause, id: run.runId });
    } catch (error) {
      await this.queue.releaseStartPublication(run.runId);
      throw error;
    }
  }
}
