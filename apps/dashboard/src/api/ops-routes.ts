import { z } from 'zod';
import { opsResponse } from './ops-schemas.js';
import type { RouteSpec } from './route-spec.js';

/** Ops and cost: the route of `OpsController`. */
export const OPS_ROUTES = {
  ops: {
    method: 'get',
    path: '/api/ops',
    summary:
      'Queue depth, runs by status and exit status, failures, p50/p99 durations, model calls, tokens and cost per run, per CI fix and per merged pull request: per UTC day, repository and person',
    access: 'read',
    query: z.strictObject({
      days: z.coerce.number().int().min(1).max(90).default(14).describe('the window, in days'),
      until: z.iso
        .date()
        .optional()
        .describe('the last day of the window (YYYY-MM-DD, UTC); today by default'),
    }),
    response: opsResponse,
  },
} as const satisfies Record<string, RouteSpec>;
