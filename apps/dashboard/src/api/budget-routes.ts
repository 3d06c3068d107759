import { BUDGET_SCOPES } from '@caravel/db';
import { z } from 'zod';
import type { RouteSpec } from './route-spec.js';
import { budgetLimitResponse, budgetPauseResponse } from './schemas.js';

const scopeParams = z.object({
  scope: z.enum(BUDGET_SCOPES, {
    error: (issue) =>
      `unknown budget scope ${JSON.stringify(issue.input)}: team, repository or person`,
  }),
});
const subject = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .optional()
  .describe('repository: owner/name; person: source:id (github:octocat); team: none');

/**
 * Dollar budgets per run: everyone reads the team's, repositories' and people's limits and the
 * runs paused at theirs; admins set and remove limits.
 */
export const BUDGET_ROUTES = {
  budgets: {
    method: 'get',
    path: '/api/budgets',
    summary: "Every budget limit: the team's, then repositories' and people's",
    access: 'read',
    response: z.array(budgetLimitResponse),
  },
  budgetsPauses: {
    method: 'get',
    path: '/api/budgets/pauses',
    summary:
      'Runs paused at their budget that a grant reply ("continue with $5 more") would still continue, newest first, with who may grant',
    access: 'read',
    response: z.array(budgetPauseResponse),
  },
  budgetsSave: {
    method: 'put',
    path: '/api/budgets/{scope}',
    summary:
      'Sets the dollars one run may spend for the team, a repository or a person (admins; the tightest limit that applies wins)',
    access: 'admin',
    params: scopeParams,
    body: z.strictObject({
      subject,
      budgetUsd: z
        .number({ error: 'budgetUsd must be a number of dollars' })
        .positive('budgetUsd must be more than 0 (remove the limit to lift it)')
        .max(100_000, 'budgetUsd must be at most 100000'),
    }),
    response: budgetLimitResponse,
  },
  budgetsRemove: {
    method: 'delete',
    path: '/api/budgets/{scope}',
    summary: "Lifts a limit (admins); the team's falls back to RUN_BUDGET_USD",
    access: 'admin',
    params: scopeParams,
    query: z.strictObject({ subject }),
    status: 204,
  },
} as const satisfies Record<string, RouteSpec>;
