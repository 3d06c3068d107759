import {
  WAKEUP_BUDGET,
  WAKEUP_DELAY_MINUTES,
  type ScheduleWakeupResponse,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineChannelTool } from '../channel/channel-tool.js';
import type { CaravelTool } from '../core/tool-definition.js';

/** The tool's name, as the model and the trajectories see it. */
export const SCHEDULE_WAKEUP_TOOL_NAME = 'schedule_thread_wakeup';

/** One wakeup the agent asks for. */
export interface WakeupRequest {
  delayMinutes: number;
  /** What the woken run is told; dispatch's reminder when absent. */
  prompt?: string;
  /** The same key for a repeated call (a run resumed from its checkpoint) schedules once. */
  idempotencyKey: string;
}

/** A wakeup scheduled, as dispatch confirmed it. */
export type ScheduledWakeup = Extract<ScheduleWakeupResponse, { scheduled: true }>;

/**
 * Schedules wakeups of the run's thread (the runner binds it to the run and sends dispatch's
 * `ScheduleThreadWakeup` request). Past the budget the answer is `scheduled: false`.
 */
export interface WakeupScheduler {
  schedule(request: WakeupRequest): Promise<ScheduleWakeupResponse>;
}

/**
 * `schedule_thread_wakeup`: the agent asks to be woken later (to check on CI, a deploy, a slow
 * job): after the delay its thread gets a message (the prompt, or a reminder) that starts a new
 * run, or reaches the running one before its next model call. At most {@link WAKEUP_BUDGET} per
 * message from a person; past that the call is refused (`FORBIDDEN`, `details.reason:
 * budget_exhausted`) with dispatch's explanation. Each call carries an idempotency key: its call
 * id (Caravel's: the run's turn and the call's place in it), so a run resumed from its checkpoint
 * that makes the call again does not schedule a second wakeup, while another call with the same
 * arguments does. Without a call id, the key is made of the arguments and how often this run made
 * the same call.
 */
export function scheduleThreadWakeupTool(scheduler: WakeupScheduler): CaravelTool<ScheduledWakeup> {
  const repeats = new Map<string, number>();
  return defineChannelTool({
    name: SCHEDULE_WAKEUP_TOOL_NAME,
    description:
      `Wake this thread up later: after delay_minutes (${WAKEUP_DELAY_MINUTES.min} to ` +
      `${WAKEUP_DELAY_MINUTES.max}) the thread receives your prompt as a new message and you ` +
      'continue from there. Use it to come back to something slow (CI, a deploy, a review). At ' +
      `most ${WAKEUP_BUDGET} wakeups until a person writes again.`,
    effect: 'control',
    input: z.strictObject({
      delay_minutes: z
        .number()
        .int()
        .min(WAKEUP_DELAY_MINUTES.min)
        .max(WAKEUP_DELAY_MINUTES.max)
        .describe('Minutes from now (rounded up to the whole minute).'),
      prompt: z
        .string()
        .trim()
        .min(1)
        .max(4000)
        .optional()
        .describe('What to tell yourself when woken: what to check and what to do next.'),
    }),
    run: async (input, call) => {
      const basis = createHash('sha256')
        .update(`${input.delay_minutes}\n${input.prompt ?? ''}`)
        .digest('hex')
        .slice(0, 16);
      const occurrence = (repeats.get(basis) ?? 0) + 1;
      repeats.set(basis, occurrence);
      const answer = await scheduler.schedule({
        delayMinutes: input.delay_minutes,
        ...(input.prompt ? { prompt: input.prompt } : {}),
        idempotencyKey: call.callId ? `call:${call.callId}` : `${basis}:${occurrence}`,
      });
      if (!answer.scheduled) {
        throw new AppError('FORBIDDEN', `No wakeup scheduled: ${answer.message}`, {
          details: { reason: answer.reason, remaining: 0 },
        });
      }
      return answer;
    },
    observe: (wakeup) =>
      `Wakeup scheduled for ${wakeup.dueAt} (id ${wakeup.wakeupId}); ${wakeup.remaining} left ` +
      'until a person writes again.',
  });
}
