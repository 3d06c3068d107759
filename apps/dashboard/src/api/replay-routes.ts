import { z } from 'zod';
import {
  replayRequestedResponse,
  replayResponse,
  replaySummaryResponse,
} from './replay-schemas.js';
import type { RouteSpec } from './route-spec.js';

const threadParams = z.object({ id: z.uuid() });
const author = z
  .string()
  .regex(/^[A-Za-z0-9._@-]{1,64}$/, 'letters, digits and . _ @ - only, at most 64');

/** Replays of a thread's runs: the routes of `ReplaysController`. */
export const REPLAY_ROUTES = {
  requestReplay: {
    method: 'post',
    path: '/api/threads/{id}/replays',
    summary:
      "Replays a finished run (the thread's latest unless `runId`) in a fresh sandbox at its recorded base and compares; a replay of that run still pending is answered instead of a second",
    access: 'action',
    params: threadParams,
    body: z.strictObject({
      author: author.optional().describe('required with the machine token; a person is themself'),
      runId: z.uuid().optional().describe('a finished run of the thread; default: its latest'),
    }),
    response: replayRequestedResponse,
    status: 202,
  },
  listReplays: {
    method: 'get',
    path: '/api/threads/{id}/replays',
    summary: "The thread's replays, newest first, with their verdicts",
    access: 'read',
    params: threadParams,
    response: z.array(replaySummaryResponse),
  },
  replay: {
    method: 'get',
    path: '/api/threads/{id}/replays/{replayId}',
    summary: 'One replay: every replayed call with its outcome, the verdict and both patches',
    access: 'read',
    params: threadParams.extend({ replayId: z.uuid() }),
    response: replayResponse,
  },
} as const satisfies Record<string, RouteSpec>;
