import { z } from 'zod';
import type { RouteSpec } from './route-spec.js';

const when = z.string().describe('ISO 8601 time');
const login = z.string().regex(/^[A-Za-z0-9-]{1,39}$/, 'a GitHub login');

/** A live dashboard session as listed: never its id (only in the sealed cookie) nor its hash. */
export const sessionResponse = z.object({
  id: z.string().describe('16 hex that tell sessions apart in a list; opens nothing'),
  current: z.boolean().describe('the session of the cookie that asked'),
  role: z.enum(['member', 'admin']).describe('the role at sign-in (each request judges it anew)'),
  createdAt: when,
  lastSeenAt: when.describe('noted at most every five minutes'),
  expiresAt: when,
  userAgent: z.string().nullable(),
  address: z.string().nullable().describe('the address the sign-in came from'),
});

const ended = z.object({ ended: z.number().int().describe('how many live sessions it ended') });

/** People's dashboard sessions: the routes of `SessionsController` (docs/dashboard.md). */
export const SESSION_ROUTES = {
  listSessions: {
    method: 'get',
    path: '/api/sessions',
    summary:
      "The signed-in person's live sessions (browsers signed in), the most recently used first; an admin or the machine token names anyone's with login",
    access: 'read',
    query: z.strictObject({ login: login.optional() }),
    response: z.array(sessionResponse),
  },
  signOutEverywhere: {
    method: 'delete',
    path: '/api/sessions',
    summary:
      "Signs the signed-in person out everywhere: every one of their sessions ends, this browser's too (not with a token)",
    access: 'action',
    response: ended,
  },
  endSessions: {
    method: 'delete',
    path: '/api/sessions/{login}',
    summary:
      "Ends every session of a person (a lost laptop, someone who left): their browsers' next request is 401; their API tokens are revoked apart",
    access: 'admin',
    params: z.object({ login }),
    response: ended,
  },
} as const satisfies Record<string, RouteSpec>;
