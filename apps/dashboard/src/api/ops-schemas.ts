import { z } from 'zod';
import { queuePositionResponse } from './queue-schemas.js';

/** The ops page's answer (`GET /api/ops`). Only zod here: the web app reads these types. */
const usd = z.number().describe('US dollars, as the model providers reported them');
const perUsd = z.number().nullable().describe('US dollars each; null when there is none');

const usage = z.object({
  runs: z.number().int(),
  ended: z.number().int().describe('completed, failed or interrupted'),
  failed: z.number().int(),
  modelCalls: z.number().int().describe("the agent's steps: one model call each"),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  costUsd: usd,
  costPerRunUsd: perUsd.describe('cost over ended runs'),
  ciFixes: z.number().int().describe('fix runs CI babysitting asked for'),
  ciFixCostUsd: usd,
  costPerCiFixUsd: perUsd,
  pullRequestsOpened: z.number().int().describe('agent pull requests (CI watches) opened'),
  pullRequestsMerged: z.number().int(),
  mergedCostUsd: usd.describe("every run of the merged pull requests' threads"),
  costPerMergedPullRequestUsd: perUsd,
  reviewCostUsd: usd.describe("the reviewer's model calls (totals and by repository only)"),
  findingsAccepted: z.number().int().describe("Caravel's findings a commit fixed"),
  costPerAcceptedFindingUsd: perUsd,
});

const durations = {
  p50Seconds: z.number().nullable(),
  p99Seconds: z.number().nullable(),
};

export const opsResponse = z.object({
  window: z.object({ since: z.string(), until: z.string() }),
  queue: z.object({
    waiting: z.number().int().describe('runs waiting for room'),
    active: z.number().int().describe('admitted runs not finished'),
    runs: z
      .array(queuePositionResponse)
      .describe('the waiting runs, first to be admitted first, with how long each has waited'),
  }),
  totals: usage.extend(durations),
  days: z.array(usage.extend(durations).extend({ day: z.string().describe('YYYY-MM-DD, UTC') })),
  byRepository: z.array(usage.extend({ key: z.string().describe('owner/name') })),
  byPerson: z.array(usage.extend({ key: z.string().describe('source:id') })),
  statuses: z.array(
    z.object({ status: z.string(), exitStatus: z.string().nullable(), runs: z.number().int() }),
  ),
  failures: z.array(
    z.object({
      exitStatus: z.string().nullable(),
      runs: z.number().int(),
      latestSummary: z.string(),
    }),
  ),
});
