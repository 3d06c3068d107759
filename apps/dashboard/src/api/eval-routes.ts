import { EVAL_PROPOSAL_STATUSES } from '@caravel/db';
import { z } from 'zod';
import type { RouteSpec } from './route-spec.js';

const when = z.string().describe('ISO 8601 time');
/** A suite or configuration name, as `caravel eval` takes it (its folder's, or `--config`'s). */
const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/, 'letters, digits, . _ - (at most 80)');
const limit = z.coerce.number().int().min(1).max(500).default(50);
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
  status: z.enum(['running', 'finished']),
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
  status: z.enum(EVAL_PROPOSAL_STATUSES),
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

/** Private evals: recorded suite runs and the gate's proposals (docs/evals.md). */
export const EVAL_ROUTES = {
  listEvalRuns: {
    method: 'get',
    path: '/api/evals/runs',
    summary: 'Eval suite runs, the newest first, with their resolve rates and cost',
    access: 'read',
    query: z.strictObject({ suite: name.optional(), limit }),
    response: z.array(evalRunResponse),
  },
  evalRun: {
    method: 'get',
    path: '/api/evals/runs/{id}',
    summary: "An eval run's summary and each task's attempts, resolved ones and cost",
    access: 'read',
    params: z.object({ id: z.uuid() }),
    response: evalRunDetailResponse,
  },
  listEvalProposals: {
    method: 'get',
    path: '/api/evals/proposals',
    summary: "Proposed configuration changes, the newest first, with the gate's verdicts",
    access: 'read',
    query: z.strictObject({
      suite: name.optional(),
      status: z.enum(EVAL_PROPOSAL_STATUSES).optional(),
      limit,
    }),
    response: z.array(evalProposalResponse),
  },
  proposeEvalChange: {
    method: 'post',
    path: '/api/evals/proposals',
    summary:
      'Records a proposed configuration change for the gate (`caravel eval gate --proposal ID` runs it; admins)',
    access: 'admin',
    body: z.strictObject({
      suite: name,
      config: name,
      model: z.string().trim().min(1).max(200),
      settings: z
        .record(z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'an environment variable name'), z.string())
        .default({}),
      note: z.string().trim().max(2000).optional(),
    }),
    status: 201,
    response: evalProposalResponse,
  },
} as const satisfies Record<string, RouteSpec>;
