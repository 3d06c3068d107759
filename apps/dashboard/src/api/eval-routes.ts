import { EVAL_PROPOSAL_STATUSES } from '@caravel/db';
import { z } from 'zod';
import { evalProposalResponse, evalRunDetailResponse, evalRunResponse } from './eval-schemas.js';
import type { RouteSpec } from './route-spec.js';

/** A suite or configuration name, as `caravel eval` takes it (its folder's, or `--config`'s). */
const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/, 'letters, digits, . _ - (at most 80)');
const limit = z.coerce.number().int().min(1).max(500).default(50);

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
