import { z } from 'zod';
import { defineRequest } from '../define-request.js';
import { threadId } from './common.js';

/** A question to the read-only chat agent about a thread's repository (the dashboard's chat). */
export const AgentChat = defineRequest({
  service: 'agent',
  op: 'chat',
  description: "Ask the read-only chat agent about a thread's code; it reads, never writes.",
  request: z.object({
    threadId,
    question: z.string().min(1).max(20_000),
    /** Who asks, as the thread names them. */
    author: z.string().min(1),
  }),
  response: z.object({
    answer: z.string(),
    /** How many tool calls (all reads) the agent made to answer. */
    toolCalls: z.number().int().nonnegative(),
  }),
});
