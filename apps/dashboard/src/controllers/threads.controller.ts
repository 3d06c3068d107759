import type { RunEventRow, RunRow, ThreadPlanRow, ThreadRow } from '@caravel/db';
import { Controller, Get, Inject, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller, ReadGuard } from '../auth/guards.js';
import type { AuthRequest, Caller } from '../auth/session.types.js';
import { ThreadQueryService, type ThreadDetail } from '../services/thread-query.service.js';
import { ThreadStreamService } from '../services/thread-stream.service.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';

/** The resume point of a stream: the browser's Last-Event-ID on a reconnect, else `?after`. */
function resumeAfter(request: Request, after: number | undefined): number | undefined {
  const last = Number(request.headers['last-event-id']);
  return Number.isSafeInteger(last) && last >= 0 ? last : after;
}

/**
 * Dashboard API: threads, their runs, their events (also live) and their plans; only the threads
 * the caller may see ({@link VisibleThreadsService}: another is a 404, as a missing one).
 */
@Controller('api')
@UseGuards(ReadGuard)
export class ThreadsController {
  constructor(
    @Inject(ThreadQueryService) private readonly query: ThreadQueryService,
    @Inject(ThreadStreamService) private readonly streams: ThreadStreamService,
    @Inject(VisibleThreadsService) private readonly visible: VisibleThreadsService,
    @Inject(ReadGuard) private readonly reads: ReadGuard,
  ) {}

  @Get('threads')
  threads(@Query() raw: unknown, @CurrentCaller() caller: Caller | null): Promise<ThreadRow[]> {
    const { limit, source, repo, person, status, since, until } = parseInput(
      ROUTES.listThreads.query,
      raw,
      'query',
    );
    return this.visible.list(caller, {
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
  async runs(@Query() raw: unknown, @CurrentCaller() caller: Caller | null): Promise<RunRow[]> {
    const { limit, status } = parseInput(ROUTES.listRuns.query, raw, 'query');
    return this.visible.ofVisibleThreads(caller, await this.query.listRuns(limit, status));
  }

  @Get('threads/:id')
  async thread(
    @Param() params: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<ThreadDetail> {
    const { id } = parseInput(ROUTES.thread.params, params, 'thread id');
    await this.visible.thread(caller, id);
    return this.query.thread(id);
  }

  @Get('threads/:id/events')
  async events(
    @Param() params: unknown,
    @Query() raw: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<RunEventRow[]> {
    const { id } = parseInput(ROUTES.threadEvents.params, params, 'thread id');
    const { after, limit } = parseInput(ROUTES.threadEvents.query, raw, 'query');
    await this.visible.thread(caller, id);
    return this.query.threadEvents(id, { after, limit });
  }

  @Get('threads/:id/stream')
  async stream(
    @Param() params: unknown,
    @Query() raw: unknown,
    @Req() request: Request,
    @Res() response: Response,
    @CurrentCaller() caller: Caller | null,
  ): Promise<void> {
    const { id } = parseInput(ROUTES.threadStream.params, params, 'thread id');
    const { after } = parseInput(ROUTES.threadStream.query, raw, 'query');
    await this.visible.thread(caller, id); // refused before the stream opens
    const closed = new AbortController();
    response.on('close', () => closed.abort());
    // Asked again before each new batch: a revoked token, an ended session or a lost repository
    // ends the stream instead of reading on.
    const mayRead = async (): Promise<void> => {
      const again = request as AuthRequest;
      await this.reads.check(again);
      await this.visible.thread(again.caller ?? null, id);
    };
    await this.streams.stream(id, {
      after: resumeAfter(request, after),
      sink: response,
      gone: closed.signal,
      mayRead,
      person: caller?.kind === 'person' ? caller.session.login.toLowerCase() : null,
    });
  }

  @Get('threads/:id/plans')
  async plans(
    @Param() params: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<ThreadPlanRow[]> {
    const { id } = parseInput(ROUTES.threadPlans.params, params, 'thread id');
    await this.visible.thread(caller, id);
    return this.query.threadPlans(id);
  }
}
