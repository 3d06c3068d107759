import { recordingOf } from '@caravel/agent';
import { ReplayRunV1, replayIdFor } from '@caravel/contracts';
import { RunEventRepository, RunRepository, ThreadRepository, type RunRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable } from '@nestjs/common';
import {
  REPLAY_EVENT_TYPES,
  replaysOf,
  summaryOf,
  type ReplaySummary,
  type ReplayView,
} from './replay-view.js';

/** The most indexed replay events one thread's replays are read from. */
const MAX_REPLAY_EVENTS = 20_000;
const REPLAY_TYPES: ReadonlySet<string> = new Set(REPLAY_EVENT_TYPES);

/** What a replay request answers: the replay that will run (or already runs) for the run. */
export interface ReplayRequested {
  replayId: string;
  runId: string;
  status: ReplaySummary['status'];
}

/**
 * Replays from the dashboard: a person asks for a finished run to be replayed (the agent runner
 * does it in a broker sandbox of its own and publishes `evt.replay.*`, which the dashboard
 * indexes); the thread's replays are read back from those events.
 */
@Injectable()
export class ReplaysService {
  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(RunRepository) private readonly runs: RunRepository,
    @Inject(RunEventRepository) private readonly events: RunEventRepository,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
  ) {}

  /**
   * Asks for a replay of the run (the thread's latest finished one unless named). The replay's
   * id is the run's next replay number, so a request made while one is pending answers that one
   * and publishes nothing new (and two at once publish one message id, which the bus keeps once).
   * @throws AppError NOT_FOUND (thread, run), CONFLICT (run not finished), PRECONDITION_FAILED
   *   (no trajectory or no call to replay).
   */
  async request(
    threadId: string,
    request: { runId?: string | undefined; author: string },
  ): Promise<ReplayRequested> {
    await this.existing(threadId);
    const run = this.runToReplay(threadId, await this.runs.listByThread(threadId), request.runId);
    const rows = await this.events.listByRun(run.id);
    recordingOf(run.id, rows);
    const replays = replaysOf(rows.filter((row) => REPLAY_TYPES.has(row.type)));
    const ended = replays.filter(
      (replay) => replay.status === 'completed' || replay.status === 'failed',
    );
    const replayId = replayIdFor(run.id, ended.length + 1);
    const pending = replays.find((replay) => replay.id === replayId);
    if (pending) return { replayId, runId: run.id, status: pending.status };
    await this.publisher.publish(
      ReplayRunV1,
      { threadId, runId: run.id, replayId, requestedBy: { externalId: request.author } },
      { id: replayId },
    );
    return { replayId, runId: run.id, status: 'requested' };
  }

  async list(threadId: string): Promise<ReplaySummary[]> {
    return (await this.replays(threadId)).map(summaryOf);
  }

  async get(threadId: string, replayId: string): Promise<ReplayView> {
    const found = (await this.replays(threadId)).find((replay) => replay.id === replayId);
    if (!found) throw new AppError('NOT_FOUND', `thread ${threadId} has no replay ${replayId}`);
    return found;
  }

  private async replays(threadId: string): Promise<ReplayView[]> {
    await this.existing(threadId);
    const rows = await this.events.listByThread(threadId, {
      types: REPLAY_EVENT_TYPES,
      limit: MAX_REPLAY_EVENTS,
    });
    return replaysOf(rows);
  }

  private runToReplay(
    threadId: string,
    runs: readonly RunRow[],
    runId: string | undefined,
  ): RunRow {
    if (runId !== undefined) {
      const run = runs.find((candidate) => candidate.id === runId);
      if (!run) throw new AppError('NOT_FOUND', `thread ${threadId} has no run ${runId}`);
      if (run.finishedAt === null)
        throw new AppError('CONFLICT', `run ${runId} has not finished (it is ${run.status})`);
      return run;
    }
    const finished = runs.filter((run) => run.finishedAt !== null);
    const latest = finished.sort((a, b) => b.finishedAt!.getTime() - a.finishedAt!.getTime())[0];
    if (!latest) throw new AppError('CONFLICT', `thread ${threadId} has no finished run to replay`);
    return latest;
  }

  private async existing(threadId: string): Promise<void> {
    if (!(await this.threads.get(threadId)))
      throw new AppError('NOT_FOUND', `no thread ${threadId}`);
  }
}
