import { MAX_USER_INSTRUCTIONS_CHARS } from '@caravel/tools';
import { z } from 'zod';
import type { RouteSpec } from './route-spec.js';
import { userInstructionsResponse } from './schemas.js';

const identityParams = z.object({
  identity: z.string().regex(/^[a-z]+:[^\s]{1,128}$/, 'source:id, e.g. github:octocat'),
});

/** People's standing instructions to the agent: the routes of `InstructionsController`. */
export const INSTRUCTIONS_ROUTES = {
  listInstructions: {
    method: 'get',
    path: '/api/instructions',
    summary: "Everyone's standing instructions, the most recently changed first (admins)",
    access: 'admin',
    response: z.array(userInstructionsResponse),
  },
  instructions: {
    method: 'get',
    path: '/api/instructions/{identity}',
    summary: "A person's standing instructions (a person reads their own; admins anyone's)",
    access: 'read',
    params: identityParams,
    response: userInstructionsResponse,
  },
  saveInstructions: {
    method: 'put',
    path: '/api/instructions/{identity}',
    summary:
      "Replaces a person's standing instructions, attached to their requests (a person their own; admins anyone's)",
    access: 'action',
    params: identityParams,
    body: z.strictObject({
      instructions: z.string().trim().min(1).max(MAX_USER_INSTRUCTIONS_CHARS),
    }),
    response: userInstructionsResponse,
  },
  removeInstructions: {
    method: 'delete',
    path: '/api/instructions/{identity}',
    summary: "Forgets a person's standing instructions (a person their own; admins anyone's)",
    access: 'action',
    params: identityParams,
    status: 204,
  },
} as const satisfies Record<string, RouteSpec>;
