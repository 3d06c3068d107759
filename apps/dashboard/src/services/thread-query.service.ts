import { AppError } from '@caravel/errors';
import {
  RunEventRepository,
  RunRepository,
  ThreadRepository,
  type RunEventRow,
  type RunRow,
  type ThreadRow,
} from '@caravel/db';
import { Inject, Injectable } from '@nestjs/common';

export interface ThreadDetail {
  thread: ThreadRow;
  runs: RunRow[];
}

/** Read side of the dashboard API. */
@Injectable()
export class ThreadQueryService {
  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(RunRepository) private readonly runs: RunRepository,
    @Inject(RunEventRepository) private readonly events: RunEventRepository,
  ) {}

  listThreads(limit: number): Promise<ThreadRow[]> {
    return this.threads.list({ limit });
  }

  listRuns(limit: number, status?: string): Promise<RunRow[]> {
    return this.runs.listRecent({ limit, ...(status ? { status } : {}) });
  }

  async thread(id: string): Promise<ThreadDetail> {
    const thread = await this.threads.get(id);
    if (!thread) throw new AppError('NOT_FOUND', `no thread ${id}`);
    return { thread, runs: await this.runs.listByThread(id) };
  }

  async threadEvents(id: string, afterSequence?: number): Promise<RunEventRow[]> {
    await this.thread(id);
    return this.events.listByThread(id, afterSequence === undefined ? {} : { afterSequence });
  }
}
