import { z } from 'zod';
import type { RouteSpec } from './route-spec.js';
import { personalTokenResponse } from './schemas.js';

/** A signed-in person's own API tokens: the routes of `PersonalTokensController`. */
export const TOKEN_ROUTES = {
  listTokens: {
    method: 'get',
    path: '/api/tokens',
    summary: "The signed-in person's API tokens (never their secrets), newest first",
    access: 'read',
    response: z.array(personalTokenResponse),
  },
  createToken: {
    method: 'post',
    path: '/api/tokens',
    summary:
      'Makes an API token acting as the signed-in person (shown once; read, or act in threads; never admin)',
    access: 'action',
    body: z.strictObject({
      name: z.string().trim().min(1).max(60),
      scope: z.enum(['read', 'act']).default('read'),
      days: z.number().int().min(1).max(365).default(90),
    }),
    status: 201,
    response: personalTokenResponse.extend({
      token: z.string().describe('cvt_…: shown this once; send it as Authorization: Bearer'),
    }),
  },
  revokeToken: {
    method: 'delete',
    path: '/api/tokens/{id}',
    summary: "Revokes one of the signed-in person's API tokens",
    access: 'action',
    params: z.object({ id: z.string().regex(/^[0-9a-f]{16}$/, 'a token id (16 hex)') }),
    status: 204,
  },
} as const satisfies Record<string, RouteSpec>;
