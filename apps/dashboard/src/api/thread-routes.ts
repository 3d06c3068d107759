import { z } from 'zod';
import { threadDetailResponse } from './queue-schemas.js';
import { planResponse, runEventResponse } from './schemas.js';
import type { RouteSpec } from './route-spec.js';

const threadParams = z.object({ id: z.uuid() });
/** The most events one read of a thread's events answers: a long thread is read page by page. */
const EVENTS_PAGE_MAX = 1_000;

/** A thread's reads: the thread with its runs and queue place, its events (also live), its plans. */
export const THREAD_ROUTES = {
  thread: {
    method: 'get',
    path: '/api/threads/{id}',
    summary: "A thread, its runs and its waiting run's place in the dispatch queue",
    access: 'read',
    params: threadParams,
    response: threadDetailResponse,
  },
  threadEvents: {
    method: 'get',
    path: '/api/threads/{id}/events',
    summary:
      "A thread's run events in the order they were indexed, after a position: a page of at most `limit` (500 unless said, at most 1,000)",
    access: 'read',
    params: threadParams,
    query: z.object({
      after: z.coerce.number().int().nonnegative().optional(),
      limit: z.coerce.number().int().min(1).max(EVENTS_PAGE_MAX).default(500),
    }),
    response: z.array(runEventResponse),
  },
  threadStream: {
    method: 'get',
    path: '/api/threads/{id}/stream',
    summary:
      "A thread's run events live (Server-Sent Events, `id` = position; resumes after Last-Event-ID or ?after)",
    access: 'read',
    params: threadParams,
    query: z.object({ after: z.coerce.number().int().nonnegative().optional() }),
    produces: 'text/event-stream',
  },
  threadPlans: {
    method: 'get',
    path: '/api/threads/{id}/plans',
    summary: "Every revision of the thread's plan, oldest first",
    access: 'read',
    params: threadParams,
    response: z.array(planResponse),
  },
} as const satisfies Record<string, RouteSpec>;
