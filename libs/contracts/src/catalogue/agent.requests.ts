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

/**
 * An interrupting follow-up was just stored for the thread (`run.<threadId>.interrupt`): the runner
 * that holds the thread's active run serves this subject while the run lasts and checks for the
 * message at once instead of at its next (slow, safety-net) poll. Nobody answers when no run is
 * active; the message then starts the thread's next run as usual.
 */
export const RunInterruptNotice = defineRequest({
  service: 'run',
  op: 'interrupt',
  description: "An interrupting follow-up is waiting: the thread's active run checks for it now.",
  request: z.object({ threadId, messageId: z.string().min(1) }),
  response: z.object({ checking: z.literal(true) }),
});
