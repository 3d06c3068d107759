import { z } from 'zod';
import { runResponse, threadResponse } from './schemas.js';

/** A run waiting in the dispatch queue. Only zod here: the web app reads these types. */
export const queuePositionResponse = z.object({
  runId: z.uuid(),
  threadId: z.uuid(),
  repository: z.string().describe('owner/name, or (none)'),
  person: z.string().describe('source:id of whoever asked'),
  position: z.number().int().describe('1-based place among every waiting run, in fair-share order'),
  repositoryPosition: z
    .number()
    .int()
    .describe(
      "1-based place among its repository's waiting runs (each repository has its own limit)",
    ),
  waiting: z.number().int().describe('runs waiting in all'),
  repositoryWaiting: z.number().int().describe("runs waiting in the run's repository"),
  enqueuedAt: z.string().describe('ISO 8601 time'),
  waitSeconds: z.number().int().describe('how long it has waited so far'),
});

/** `GET /api/threads/:id`: the thread, its runs, where its waiting run stands, its pull request. */
export const threadDetailResponse = z.object({
  thread: threadResponse,
  runs: z.array(runResponse),
  queue: queuePositionResponse
    .nullable()
    .describe("where the thread's run waits in the dispatch queue; null when none waits"),
  pullRequest: z
    .object({
      number: z.number().int(),
      url: z.string().describe('the pull request on the code host'),
      draft: z.boolean().describe('a draft when it was opened or last updated'),
      state: z
        .enum(['open', 'closed', 'merged'])
        .nullable()
        .describe("as dispatch's CI watch of it last saw it; null: not known"),
    })
    .nullable()
    .describe("the pull request the thread's agent opened or updated last; null when none"),
});
