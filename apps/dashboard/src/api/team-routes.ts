import { MAX_REPOSITORY_INSTRUCTIONS_CHARS } from '@caravel/db';
import { z } from 'zod';
import type { RouteSpec } from './route-spec.js';
import {
  identityResponse,
  repositoryInstructionsResponse,
  supportedModelResponse,
  teamDefaultsResponse,
} from './schemas.js';

const model = z.string().trim().min(1).max(200).nullable().default(null);
const repositoryParams = z.object({
  owner: z.string().min(1).max(100),
  name: z.string().min(1).max(100),
});

/**
 * What admins keep for the whole team: its defaults and each repository's instructions; and the
 * models its settings may name, for everyone.
 */
const handle = (pattern: RegExp, what: string) =>
  z.string().trim().min(1).max(200).regex(pattern, what).optional();

export const TEAM_ROUTES = {
  listIdentities: {
    method: 'get',
    path: '/api/identities',
    summary:
      "The identity map: each person's GitHub login, Slack user, email (Linear), Linear and Jira accounts (admins)",
    access: 'admin',
    response: z.array(identityResponse),
  },
  linkIdentity: {
    method: 'put',
    path: '/api/identities',
    summary:
      "Links a person's handles into one identity: the one already holding any of them, else a new one (admins; a handle another person holds is refused, 409)",
    access: 'admin',
    body: z.strictObject({
      githubLogin: handle(/^[A-Za-z0-9-]+$/, 'must be a GitHub login'),
      slackUserId: handle(/^[UW][A-Z0-9]+$/, 'must be a Slack user id (U…)'),
      email: handle(/^[^\s@]+@[^\s@]+$/, 'must be an email address'),
      linearUserId: handle(/^[\w-]+$/, 'must be a Linear user id'),
      jiraAccountId: handle(/^[\w:-]+$/, 'must be a Jira account id'),
      displayName: z.string().trim().max(200).optional(),
    }),
    response: identityResponse,
  },
  removeIdentity: {
    method: 'delete',
    path: '/api/identities/{id}',
    summary: "Removes a person's identity mapping (admins)",
    access: 'admin',
    params: z.object({ id: z.uuid() }),
    status: 204,
  },
  supportedModels: {
    method: 'get',
    path: '/api/models',
    summary:
      'The supported models: provider, id, context window, prices and the reasoning efforts each takes',
    access: 'read',
    response: z.array(supportedModelResponse),
  },
  teamDefaults: {
    method: 'get',
    path: '/api/team-defaults',
    summary: "The team's defaults, between people's profiles and the environment (admins)",
    access: 'admin',
    response: teamDefaultsResponse,
  },
  saveTeamDefaults: {
    method: 'put',
    path: '/api/team-defaults',
    summary:
      "Replaces the team's defaults; null leaves the environment's (admins; an unknown model or an effort it does not take is refused)",
    access: 'admin',
    body: z.strictObject({
      model,
      reasoningEffort: z.string().trim().min(1).max(20).nullable().default(null),
      fallbackModel: model,
      subagentModel: model,
      draftPullRequests: z.boolean().nullable().default(null),
      alwaysCreatePullRequests: z.boolean().nullable().default(null),
    }),
    response: teamDefaultsResponse,
  },
  listRepositoryInstructions: {
    method: 'get',
    path: '/api/repository-instructions',
    summary: "Every repository's instructions, by name (admins)",
    access: 'admin',
    response: z.array(repositoryInstructionsResponse),
  },
  repositoryInstructions: {
    method: 'get',
    path: '/api/repository-instructions/{owner}/{name}',
    summary: "A repository's instructions, empty when it has none (admins)",
    access: 'admin',
    params: repositoryParams,
    response: repositoryInstructionsResponse,
  },
  saveRepositoryInstructions: {
    method: 'put',
    path: '/api/repository-instructions/{owner}/{name}',
    summary:
      "Replaces a repository's instructions, given to every coding run in it beside AGENTS.md (admins)",
    access: 'admin',
    params: repositoryParams,
    body: z.strictObject({
      instructions: z.string().trim().min(1).max(MAX_REPOSITORY_INSTRUCTIONS_CHARS),
    }),
    response: repositoryInstructionsResponse,
  },
  removeRepositoryInstructions: {
    method: 'delete',
    path: '/api/repository-instructions/{owner}/{name}',
    summary: "Forgets a repository's instructions (admins)",
    access: 'admin',
    params: repositoryParams,
    status: 204,
  },
} as const satisfies Record<string, RouteSpec>;
