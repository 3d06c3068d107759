import { EVAL_PROPOSAL_KINDS, EVAL_PROPOSAL_STATUSES, EVAL_RUN_KINDS } from '@caravel/db';
import { z } from 'zod';
import { EVAL_SCHEDULE_ROUTES, evalName as name, evalSettings } from './eval-schedule-routes.js';
import { evalProposalResponse, evalRunDetailResponse, evalRunResponse } from './eval-schemas.js';
import type { RouteSpec } from './route-spec.js';
const limit = z.coerce.number().int().min(1).max(500).default(50);

/** Private evals: recorded suite runs and the gate's proposals (docs/evals.md). */
export const EVAL_ROUTES = {
  listEvalRuns: {
    method: 'get',
    path: '/api/evals/runs',
    summary:
      'Eval runs, the newest first: suites with their resolve rates, reviewer runs with precision, recall and F1, and cost',
    access: 'read',
    query: z.strictObject({
      suite: name.optional(),
      kind: z.enum(EVAL_RUN_KINDS).optional(),
      limit,
    }),
    response: z.array(evalRunResponse),
  },
  evalRun: {
    method: 'get',
    path: '/api/evals/runs/{id}',
    summary:
      "An eval run's summary and each task's attempts, resolved ones and cost (a reviewer run: each case's scores)",
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
      kind: z.enum(EVAL_PROPOSAL_KINDS).optional(),
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
      settings: evalSettings.default({}),
      note: z.string().trim().max(2000).optional(),
    }),
    status: 201,
    response: evalProposalResponse,
  },
  ...EVAL_SCHEDULE_ROUTES,
} as const satisfies Record<string, RouteSpec>;
