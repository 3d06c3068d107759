import { AppError } from '@caravel/errors';
import {
  CiWatchRepository,
  RunEventRepository,
  RunRepository,
  ThreadPlanRepository,
  ThreadRepository,
  type RunEventRow,
  type RunRow,
  type RunStatus,
  type ThreadPlanRow,
  type ThreadListQuery,
  type ThreadRow,
} from '@caravel/db';
import { Inject, Injectable } from '@nestjs/common';
import { QueuePositionsService, type QueuePositionView } from './queue-positions.service.js';
import {
  OPEN_PR_TOOL,
  pullRequestOfStep,
  repositoryOfPullUrl,
  stateOfWatch,
  type ThreadPullRequest,
} from './thread-pull-request.js';

export interface ThreadDetail {
  thread: ThreadRow;
  runs: RunRow[];
  /** Where the thread's run waits in the dispatch queue; null when none waits. */
  queue: QueuePositionView | null;
  /** The pull request the thread's agent opened or updated last; null when it has none. */
  pullRequest: ThreadPullRequest | null;
}

/** Read side of the dashboard API. */
@Injectable()
export class ThreadQueryService {
  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(RunRepository) private readonly runs: RunRepository,
    @Inject(RunEventRepository) private readonly events: RunEventRepository,
    @Inject(ThreadPlanRepository) private readonly plans: ThreadPlanRepository,
    @Inject(QueuePositionsService) private readonly queue: QueuePositionsService,
    @Inject(CiWatchRepository) private readonly watches: CiWatchRepository,
  ) {}

  listThreads(query: ThreadListQuery): Promise<ThreadRow[]> {
    return this.threads.list(query);
  }

  listRuns(limit: number, status?: RunStatus): Promise<RunRow[]> {
    return this.runs.listRecent({ limit, ...(status ? { status } : {}) });
  }

  async thread(id: string): Promise<ThreadDetail> {
    const thread = await this.existing(id);
    const runs = await this.runs.listByThread(id);
    const waits = runs.some((run) => run.status === 'waiting');
    return {
      thread,
      runs,
      queue: waits ? await this.queue.ofThread(id) : null,
      pullRequest: await this.pullRequest(id),
    };
  }

  /**
   * The pull request of the thread's latest successful `commit_and_open_pr` (read from the
   * thread's own event index, so a page that has streamed that step finds it), with its state as
   * dispatch's CI watch of it last saw it.
   */
  private async pullRequest(threadId: string): Promise<ThreadPullRequest | null> {
    const step = await this.events.latestStepWithResult(threadId, OPEN_PR_TOOL);
    const pull = step ? pullRequestOfStep(step) : null;
    if (!pull) return null;
    const repository = repositoryOfPullUrl(pull.url);
    const watch = repository
      ? await this.watches.findByPullRequest(repository.owner, repository.repo, pull.number)
      : null;
    return { ...pull, state: stateOfWatch(watch) };
  }

  /** A page of a thread's events in the order they were indexed, after a position (RunEventQuery). */
  async threadEvents(
    id: string,
    page: { after?: number | undefined; limit: number },
  ): Promise<RunEventRow[]> {
    await this.existing(id);
    return this.events.listByThread(id, { afterPosition: page.after ?? 0, limit: page.limit });
  }

  /** Every revision of the thread's plan, oldest first: sanitised markdown, ready to render. */
  async threadPlans(id: string): Promise<ThreadPlanRow[]> {
    await this.existing(id);
    return this.plans.list(id);
  }

  /** The thread, or NOT_FOUND: a thread's events and plans need only that it exists. */
  private async existing(id: string): Promise<ThreadRow> {
    const thread = await this.threads.get(id);
    if (!thread) throw new AppError('NOT_FOUND', `no thread ${id}`);
    return thread;
  }
}
