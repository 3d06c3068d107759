import type { RunEventRow, RunRow, ThreadPlanRow, ThreadRow } from '@caravel/db';
import { Controller, Get, Inject, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { ReadGuard } from '../auth/guards.js';
import { ThreadQueryService, type ThreadDetail } from '../services/thread-query.service.js';
import { ThreadStreamService } from '../services/thread-stream.service.js';

/** The resume point of a stream: the browser's Last-Event-ID on a reconnect, else `?after`. */
function resumeAfter(request: Request, after: number | undefined): number | undefined {
  const last = Number(request.headers['last-event-id']);
  return Number.isSafeInteger(last) && last >= 0 ? last : after;
}

/** Dashboard API: threads, their runs, their events (also live) and their plans. */
@Controller('api')
@UseGuards(ReadGuard)
export class ThreadsController {
  constructor(
    @Inject(ThreadQueryService) private readonly query: ThreadQueryService,
    @Inject(ThreadStreamService) private readonly streams: ThreadStreamService,
  ) {}

  @Get('threads')
  threads(@Query() raw: unknown): Promise<ThreadRow[]> {
    const { limit, source, repo, person, status, since, until } = parseInput(
      ROUTES.listThreads.query,
      raw,
      'query',
    );
    return this.query.listThreads({
      limit,
      ...(source ? { source } : {}),
      ...(repo ? { repository: repo } : {}),
      ...(person ? { owner: person } : {}),
      ...(status ? { status } : {}),
      ...(since ? { updatedSince: since } : {}),
      ...(until ? { updatedBefore: until } : {}),
    });
  }

  @Get('runs')
  runs(@Query() raw: unknown): Promise<RunRow[]> {
    const { limit, status } = parseInput(ROUTES.listRuns.query, raw, 'query');
    return this.query.listRuns(limit, status);
  }

  @Get('threads/:id')
  thread(@Param() params: unknown): Promise<ThreadDetail> {
    return this.query.thread(parseInput(ROUTES.thread.params, params, 'thread id').id);
  }

  @Get('threads/:id/events')
  events(@Param() params: unknown, @Query() raw: unknown): Promise<RunEventRow[]> {
    return this.query.threadEvents(
      parseInput(ROUTES.threadEvents.params, params, 'thread id').id,
      parseInput(ROUTES.threadEvents.query, raw, 'query').after,
    );
  }

  @Get('threads/:id/stream')
  async stream(
    @Param() params: unknown,
    @Query() raw: unknown,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const { id } = parseInput(ROUTES.threadStream.params, params, 'thread id');
    const { after } = parseInput(ROUTES.threadStream.query, raw, 'query');
    const closed = new AbortController();
    response.on('close', () => closed.abort());
    await this.streams.stream(id, resumeAfter(request, after), response, closed.signal);
  }

  @Get('threads/:id/plans')
  plans(@Param() params: unknown): Promise<ThreadPlanRow[]> {
    return this.query.threadPlans(parseInput(ROUTES.threadPlans.params, params, 'thread id').id);
  }
}
