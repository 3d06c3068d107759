import { z } from 'zod';
import { defineRequest } from '../define-request.js';
import { threadId } from './common.js';

/** Asks the sandbox broker whether a thread's sandbox answers (and which provider holds it). */
export const SandboxPing = defineRequest({
  service: 'sandbox',
  op: 'ping',
  description: 'Health of the sandbox bound to a thread.',
  request: z.object({ threadId }),
  response: z.object({
    threadId,
    provider: z.string(),
    alive: z.boolean(),
  }),
});
