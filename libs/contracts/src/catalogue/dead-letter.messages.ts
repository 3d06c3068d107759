import { z } from 'zod';
import { defineMessage } from '../define-message.js';

/** A message the platform gave up on, with why. One record per (stream, sequence, consumer). */
export const DeadLetterRecordedV1 = defineMessage({
  kind: 'deadletter',
  name: 'recorded',
  version: 1,
  description: 'A consumed message was termed or exhausted its deliveries.',
  data: z.object({
    stream: z.string().min(1),
    consumer: z.string().min(1),
    sequence: z.number().int().positive(),
    subject: z.string().min(1),
    deliveries: z.number().int().positive(),
    reason: z.string().min(1),
    /** The original message bytes as text (it may not have parsed). */
    payload: z.string(),
  }),
  fixture: {
    stream: 'CARAVEL_COMMANDS',
    consumer: 'agent-runner',
    sequence: 7,
    subject: 'thread.5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e.cmd.run.start.v1.p03',
    deliveries: 5,
    reason: 'max deliveries reached: DEPENDENCY_UNAVAILABLE sandbox broker did not answer',
    payload: '{}',
  },
});
