import { z } from 'zod';
import type { RouteSpec } from './route-spec.js';
import { personalTokenResponse } from './schemas.js';

/** People's API tokens, each their own (admins anyone's): the routes of `PersonalTokensController`. */
export const TOKEN_ROUTES = {
  listTokens: {
    method: 'get',
    path: '/api/tokens',
    summary:
      "The signed-in person's API tokens (never their secrets), newest first; an admin or the machine token names anyone's with login",
    access: 'read',
    query: z.strictObject({
      login: z
        .string()
        .regex(/^[A-Za-z0-9-]{1,39}$/, 'a GitHub login')
        .optional(),
    }),
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
    summary:
      "Revokes one of the signed-in person's API tokens; an admin or the machine token any person's",
    access: 'action',
    params: z.object({ id: z.string().regex(/^[0-9a-f]{16}$/, 'a token id (16 hex)') }),
    status: 204,
  },
} as const satisfies Record<string, RouteSpec>;
