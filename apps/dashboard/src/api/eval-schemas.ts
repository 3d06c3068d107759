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

const interval = z.object({ value: z.number().nullable(), low: z.number(), high: z.number() });

const reviewScores = z.object({
  cases: z.number().describe('cases scored'),
  expected: z.number().describe('defects labelled, summed over the cases'),
  found: z.number().describe('findings scored'),
  matched: z.number().describe('defects matched to a finding'),
  precision: z.number().nullable(),
  recall: z.number().nullable(),
  f1: interval.describe('micro-averaged F1 with its 95% bootstrap interval over the cases'),
});

export const evalRunResponse = z.object({
  id: z.uuid(),
  kind: z.enum(['harbor', 'review']).describe('harbor: resolve rate; review: precision/recall/F1'),
  scheduleId: z.uuid().nullable().describe('the scheduled suite that started it'),
  scheduleSlot: when.nullable().describe('the night it ran for'),
  suite: z.string().describe('the suite, or the labelled set of a review run'),
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
  cases: z.number(),
  expected: z.number(),
  found: z.number(),
  matched: z.number(),
  review: reviewScores.nullable().describe('a review run’s scores; null for a Harbor run'),
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
  reviewCases: z.array(
    z.object({
      caseId: z.string(),
      expected: z.number(),
      found: z.number(),
      matched: z.number(),
      precision: z.number().nullable(),
      recall: z.number().nullable(),
      f1: z.number().nullable(),
      modelCalls: z.number(),
      inputTokens: z.number(),
      outputTokens: z.number(),
      costUsd: z.number(),
      wallMs: z.number(),
      error: z.string().nullable().describe('why it was not reviewed (then not scored)'),
    }),
  ),
});

export const evalScheduleResponse = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: z.enum(['harbor', 'review']),
  source: z.string().describe('a folder of Harbor tasks, or a labelled review set'),
  config: z.string(),
  model: z.string(),
  settings,
  attempts: z.number(),
  hour: z.number().describe('UTC hour it starts each day'),
  state: z.enum(['active', 'paused']),
  createdBy: z.string(),
  createdAt: when,
  updatedAt: when,
  failedSlot: when.nullable().describe('the last night whose run failed'),
  lastError: z.string().nullable(),
});

export const evalScheduleHistoryResponse = z.object({
  schedule: evalScheduleResponse,
  runs: z.array(evalRunResponse).describe('its runs, the newest night first'),
});

export const evalProposalResponse = z.object({
  id: z.uuid(),
  suite: z.string(),
  config: z.string(),
  model: z.string(),
  settings,
  note: z.string().nullable(),
  proposedBy: z.string(),
  kind: z.string().describe('agent-config (a configuration) or review-style (a style edit)'),
  repository: z.string().nullable().describe("a review style's repository (owner/name)"),
  stylePrompt: z.string().nullable().describe("a review style's draft prompt"),
  styleSummary: z.string().nullable(),
  baseVersion: z.number().nullable().describe('the style version in force when it was proposed'),
  styleVersion: z.number().nullable().describe('the style version it became, once accepted'),
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
