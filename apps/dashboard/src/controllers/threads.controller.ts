import { AppError } from '@caravel/errors';
import {
  RUN_STATUSES,
  type RunEventRow,
  type RunRow,
  type ThreadPlanRow,
  type ThreadRow,
} from '@caravel/db';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { z } from 'zod';
import { ThreadQueryService, type ThreadDetail } from '../services/thread-query.service.js';

const listQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) });
/** A status outside the set is refused (400) rather than answered with no runs. */
const runsQuery = listQuery.extend({ status: z.enum(RUN_STATUSES).optional() });
const eventsQuery = z.object({ after: z.coerce.number().int().nonnegative().optional() });
const threadId = z.uuid();

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues
    .map((i) => `${i.path.join('.') || what}: ${i.message}`)
    .join('; ');
  throw new AppError('BAD_REQUEST', `invalid ${what}: ${problems}`);
}

/** Dashboard API: threads, their runs, their events and their plans. */
@Controller('api')
export class ThreadsController {
  constructor(@Inject(ThreadQueryService) private readonly query: ThreadQueryService) {}

  @Get('threads')
  threads(@Query() raw: unknown): Promise<ThreadRow[]> {
    return this.query.listThreads(parse(listQuery, raw, 'query').limit);
  }

  @Get('runs')
  runs(@Query() raw: unknown): Promise<RunRow[]> {
    const { limit, status } = parse(runsQuery, raw, 'query');
    return this.query.listRuns(limit, status);
  }

  @Get('threads/:id')
  thread(@Param('id') id: string): Promise<ThreadDetail> {
    return this.query.thread(parse(threadId, id, 'thread id'));
  }

  @Get('threads/:id/events')
  events(@Param('id') id: string, @Query() raw: unknown): Promise<RunEventRow[]> {
    return this.query.threadEvents(
      parse(threadId, id, 'thread id'),
      parse(eventsQuery, raw, 'query').after,
    );
  }

  @Get('threads/:id/plans')
  plans(@Param('id') id: string): Promise<ThreadPlanRow[]> {
    return this.query.threadPlans(parse(threadId, id, 'thread id'));
  }
}
