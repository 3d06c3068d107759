import { triggerSource } from '@caravel/contracts';
import { RUN_STATUSES, THREAD_STATUSES } from '@caravel/db';
import { GITHUB_SIGN_IN_CALLBACK_PATH } from '@caravel/integrations';
import { z } from 'zod';
import {
  authStatusResponse,
  enabledRepositoryResponse,
  meResponse,
  profileResponse,
  signInRefusalResponse,
  runResponse,
  threadResponse,
} from './schemas.js';
import { BUDGET_ROUTES } from './budget-routes.js';
import { EVAL_ROUTES } from './eval-routes.js';
import { INSTRUCTIONS_ROUTES } from './instructions-routes.js';
import { OPS_ROUTES } from './ops-routes.js';
import { REPLAY_ROUTES } from './replay-routes.js';
import { REVIEW_ROUTES } from './review-routes.js';
import { TEAM_ROUTES } from './team-routes.js';
import { THREAD_ROUTES } from './thread-routes.js';
import { SESSION_ROUTES } from './session-routes.js';
import { TOKEN_ROUTES } from './token-routes.js';
import type { RouteSpec } from './route-spec.js';

export type { RouteAccess, RouteSpec } from './route-spec.js';

const when = z.iso.datetime({ offset: true }).transform((text) => new Date(text));
const limit = z.coerce.number().int().min(1).max(500).default(50);
const threadParams = z.object({ id: z.uuid() });
const repositoryName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, 'owner/name');
const identity = z.string().regex(/^[a-z]+:[^\s]{1,128}$/, 'source:id, e.g. github:octocat');
const author = z
  .string()
  .regex(/^[A-Za-z0-9._@-]{1,64}$/, 'letters, digits and . _ @ - only, at most 64');
const durable = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'a durable consumer name');
const deadLetterQuery = z.strictObject({
  consumer: durable.optional(),
  since: when.optional(),
  until: when.optional(),
});

/** Every dashboard route, typed once: controllers parse with these, /api/docs documents them. */
export const ROUTES = {
  authStatus: {
    method: 'get',
    path: '/api/auth',
    summary: 'Whether sign-in is configured and whether this browser is signed in',
    access: 'public',
    response: authStatusResponse,
  },
  signInRefusal: {
    method: 'get',
    path: '/api/auth/refusal',
    summary:
      "A refused sign-in's code and message, from the seal the callback put in the sign-in page's URL (404 when not made here or expired)",
    access: 'public',
    query: z.object({ sealed: z.string().min(1).max(4096) }),
    response: signInRefusalResponse,
  },
  me: {
    method: 'get',
    path: '/api/me',
    summary: 'The signed-in person and their role',
    access: 'read',
    response: meResponse,
  },
  signIn: {
    method: 'get',
    path: '/auth/github',
    summary: 'Starts "Sign in with GitHub": redirects to GitHub with a state bound to a cookie',
    access: 'public',
    produces: 'redirect',
    status: 302,
  },
  signInCallback: {
    method: 'get',
    path: GITHUB_SIGN_IN_CALLBACK_PATH,
    summary: 'GitHub sends the browser back here; sets the session cookie and redirects home',
    access: 'public',
    query: z.object({
      code: z.string().max(512).optional(),
      state: z.string().max(512).optional(),
      error: z.string().max(512).optional(),
    }),
    produces: 'redirect',
    status: 302,
  },
  signOut: {
    method: 'post',
    path: '/auth/sign-out',
    summary:
      'Signs this browser out: its session ends server-side, so the cookie is refused (401) wherever it is replayed',
    access: 'action',
    status: 204,
  },
  releaseSignInPin: {
    method: 'delete',
    path: '/api/sign-in-pins/{login}',
    summary:
      'Releases a listed login from the GitHub account it first signed in as, so its next sign-in pins it anew (a person whose account changed)',
    access: 'admin',
    params: z.object({ login: z.string().regex(/^[A-Za-z0-9-]{1,39}$/, 'a GitHub login') }),
    status: 204,
  },
  listThreads: {
    method: 'get',
    path: '/api/threads',
    summary: 'Threads, newest first, filtered',
    access: 'read',
    query: z.object({
      limit,
      source: triggerSource.optional(),
      repo: repositoryName.optional(),
      person: z.string().min(1).max(200).optional().describe('the owner, e.g. github:octocat'),
      status: z.enum(THREAD_STATUSES).optional(),
      since: when.optional().describe('updated at or after'),
      until: when.optional().describe('updated before'),
    }),
    response: z.array(threadResponse),
  },
  listRuns: {
    method: 'get',
    path: '/api/runs',
    summary: 'Recent runs; a status outside the set is refused (400)',
    access: 'read',
    query: z.object({ limit, status: z.enum(RUN_STATUSES).optional() }),
    response: z.array(runResponse),
  },
  ...THREAD_ROUTES,
  threadAction: {
    method: 'post',
    path: '/api/threads/{id}/actions',
    summary:
      'A follow-up message, or a command run in the sandbox between steps (a person acts as themself)',
    access: 'action',
    params: threadParams,
    body: z.strictObject({
      author: author.optional().describe('required with the machine token; a person is themself'),
      kind: z.enum(['message', 'command']).default('message'),
      text: z.string().trim().min(1).max(20_000),
    }),
    response: z.object({ triggerId: z.uuid() }),
    status: 202,
  },
  threadStop: {
    method: 'post',
    path: '/api/threads/{id}/stop',
    summary:
      "Stops the thread's work: its waiting run is cancelled, its active run interrupted (no failure reply, no next run)",
    access: 'action',
    params: threadParams,
    body: z.strictObject({
      author: author.optional().describe('required with the machine token; a person is themself'),
    }),
    response: z.object({ requestId: z.uuid() }),
    status: 202,
  },
  threadChat: {
    method: 'post',
    path: '/api/threads/{id}/chat',
    summary: "Asks the read-only chat agent about the thread's code",
    access: 'action',
    params: threadParams,
    body: z.strictObject({
      author: author.optional(),
      text: z.string().trim().min(1).max(20_000),
    }),
    response: z.object({ answer: z.string(), toolCalls: z.number().int() }),
  },
  recreateSandbox: {
    method: 'post',
    path: '/api/threads/{id}/sandbox/recreate',
    summary: 'A fresh sandbox for a thread whose sandbox was lost (the old one is kept)',
    access: 'action',
    params: threadParams,
    response: z.record(z.string(), z.unknown()),
  },
  profile: {
    method: 'get',
    path: '/api/profiles/{identity}',
    summary: "A person's settings (their defaults when none are saved)",
    access: 'read',
    params: z.object({ identity }),
    response: profileResponse,
  },
  saveProfile: {
    method: 'put',
    path: '/api/profiles/{identity}',
    summary: "Replaces a person's settings (a person saves their own; admins anyone's)",
    access: 'action',
    params: z.object({ identity }),
    body: z.strictObject({
      model: z.string().min(1).nullable().default(null),
      reasoningEffort: z.string().min(1).nullable().default(null),
      defaultRepository: repositoryName.nullable().default(null),
      draftPullRequests: z.boolean().default(true),
      alwaysCreatePullRequests: z.boolean().nullable().default(null),
      fallbackModel: z
        .string()
        .min(1)
        .nullable()
        .default(null)
        .describe("the model the person's runs fall back to; null: the team's"),
      autofixCi: z
        .boolean()
        .nullable()
        .default(null)
        .describe(
          "auto-fix CI on the pull requests of the person's threads; null: the team's (on)",
        ),
      subagentModel: z
        .string()
        .min(1)
        .nullable()
        .default(null)
        .describe("the model the person's runs' subagents (task) use; null: the team's"),
    }),
    response: profileResponse,
  },
  listRepositories: {
    method: 'get',
    path: '/api/repositories',
    summary: 'The repositories enabled in the dashboard and what Caravel does in each',
    access: 'read',
    response: z.array(enabledRepositoryResponse),
  },
  saveRepository: {
    method: 'put',
    path: '/api/repositories/{owner}/{name}',
    summary: 'Enables a repository or changes what Caravel does in it (admins)',
    access: 'admin',
    params: z.object({ owner: z.string().min(1).max(100), name: z.string().min(1).max(100) }),
    body: z.strictObject({
      agent: z.boolean().default(true),
      autoReview: z.boolean().default(false),
      ciAutofix: z.boolean().default(false),
    }),
    response: enabledRepositoryResponse,
  },
  removeRepository: {
    method: 'delete',
    path: '/api/repositories/{owner}/{name}',
    summary: 'Disables a repository (admins)',
    access: 'admin',
    params: z.object({ owner: z.string().min(1).max(100), name: z.string().min(1).max(100) }),
    status: 204,
  },
  listDeadLetters: {
    method: 'get',
    path: '/api/dead-letters',
    summary: 'Messages the platform gave up on (admins and the token: they hold payloads)',
    access: 'admin',
    query: deadLetterQuery,
    response: z.object({ deadLetters: z.array(z.record(z.string(), z.unknown())) }),
  },
  replayDeadLetters: {
    method: 'post',
    path: '/api/dead-letters/replay',
    summary: 'Hands selected dead letters back to their consumers',
    access: 'admin',
    body: deadLetterQuery
      .extend({
        ids: z.array(z.string().min(1).max(300)).min(1).max(1000).optional(),
        all: z.literal(true).optional(),
      })
      .refine(
        (body) => body.all === true || Object.keys(body).some((key) => key !== 'all'),
        'name what to replay: ids, consumer, since or until (or all: true for every dead letter)',
      ),
    response: z.object({ replays: z.array(z.record(z.string(), z.unknown())) }),
  },
  ...REPLAY_ROUTES,
  ...REVIEW_ROUTES,
  ...OPS_ROUTES,
  ...INSTRUCTIONS_ROUTES,
  ...TEAM_ROUTES,
  ...BUDGET_ROUTES,
  ...TOKEN_ROUTES,
  ...SESSION_ROUTES,
  ...EVAL_ROUTES,
  openApi: {
    method: 'get',
    path: '/api/docs',
    summary: 'This document (OpenAPI 3.1)',
    access: 'public',
    response: z.record(z.string(), z.unknown()),
  },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof ROUTES;
