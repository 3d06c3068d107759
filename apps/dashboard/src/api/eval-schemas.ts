import { z } from 'zod';

/**
 * Response shapes of the eval routes (docs/evals.md): only zod here, as in `schemas.ts`, so the
 * web app's program reads their types and nothing else of the server.
 */
const when = z.string().describe('ISO 8601 time');
const settings = z.record(z.string(), z.string());

const rate = z.object({
  rate: z.number().nullable().describe('resolved attempts over attempts; null with no attempt'),
  low: z.number(),
  high: z.number(),
});

export const evalRunResponse = z.object({
  id: z.uuid(),
  suite: z.string(),
  config: z.string(),
  model: z.string(),
  settings,
  attemptsPerTask: z.number(),
  status: z.string().describe('running or finished'),
  outDir: z.string().nullable(),
  createdAt: when,
  finishedAt: when.nullable(),
  tasks: z.number(),
  attempts: z.number(),
  resolvedAttempts: z.number(),
  resolve: rate.describe('with its 95% Wilson interval'),
  costUsd: z.number(),
});

export const evalRunDetailResponse = evalRunResponse.extend({
  taskResults: z.array(
    z.object({
      taskId: z.string(),
      attempts: z.number(),
      resolved: z.number(),
      costUsd: z.number(),
      modelCalls: z.number(),
      exitStatuses: z.array(z.string()),
    }),
  ),
});

export const evalProposalResponse = z.object({
  id: z.uuid(),
  suite: z.string(),
  config: z.string(),
  model: z.string(),
  settings,
  note: z.string().nullable(),
  proposedBy: z.string(),
  status: z.string().describe('pending, accepted or refused'),
  baselineRunId: z.uuid().nullable(),
  candidateRunId: z.uuid().nullable(),
  maxDrop: z.number().nullable(),
  alpha: z.number().nullable(),
  delta: z.number().nullable(),
  pValue: z.number().nullable(),
  reason: z.string().nullable(),
  numbers: z.unknown().describe("the gate's numbers: each side's rate and interval, lost, gained"),
  createdAt: when,
  decidedAt: when.nullable(),
});
