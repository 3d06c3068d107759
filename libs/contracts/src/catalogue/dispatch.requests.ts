import { z } from 'zod';
import { defineRequest } from '../define-request.js';
import { runId, threadId } from './common.js';

/** Wakeups a thread may schedule between two messages from a person. */
export const WAKEUP_BUDGET = 10;

/** Bounds of `schedule_thread_wakeup`'s delay, in minutes (one minute to one day). */
export const WAKEUP_DELAY_MINUTES = { min: 1, max: 1440 } as const;

const scheduleWakeupRequest = z.object({
  threadId,
  /** The run asking; its thread is woken with a synthetic message when the wakeup is due. */
  runId,
  delayMinutes: z.number().int().min(WAKEUP_DELAY_MINUTES.min).max(WAKEUP_DELAY_MINUTES.max),
  /** What the woken run is told; a default reminder when absent. */
  prompt: z.string().min(1).max(4000).optional(),
  /** Makes a repeated call (a run resumed from its checkpoint) schedule one wakeup. */
  idempotencyKey: z.string().min(1).max(200),
});

const scheduleWakeupResponse = z.discriminatedUnion('scheduled', [
  z.object({
    scheduled: z.literal(true),
    wakeupId: z.uuid(),
    /** When it fires (ISO 8601, rounded up to the whole minute). */
    dueAt: z.iso.datetime(),
    /** Wakeups left before the next message from a person. */
    remaining: z.number().int().nonnegative(),
  }),
  z.object({
    scheduled: z.literal(false),
    reason: z.literal('budget_exhausted'),
    message: z.string(),
    remaining: z.literal(0),
  }),
]);

/** Request and answer of {@link ScheduleThreadWakeup}. */
export type ScheduleWakeupRequest = z.input<typeof scheduleWakeupRequest>;
export type ScheduleWakeupResponse = z.output<typeof scheduleWakeupResponse>;

/**
 * `schedule_thread_wakeup`: a run asks dispatch to wake its thread later with a synthetic message
 * (delivered like any synthetic follow-up: injected into a busy thread's run, or starting a run
 * on an idle one). At most {@link WAKEUP_BUDGET} per message from a person; past it the answer is
 * `scheduled: false` (not an error) so the tool can tell the model.
 */
export const ScheduleThreadWakeup = defineRequest({
  service: 'dispatch',
  op: 'wakeup',
  request: scheduleWakeupRequest,
  response: scheduleWakeupResponse,
  description: 'Schedule a wakeup of the thread after a delay, within its budget.',
});

const manageBabySitRequest = z.object({
  threadId,
  /** The run asking; the watch's fix runs and messages go to its thread. */
  runId,
  action: z.enum(['start', 'stop']),
  /** The pull request's web url (`…/<owner>/<repo>/pull/<number>`). */
  pullRequestUrl: z.string().min(1).max(2_000),
});

const manageBabySitResponse = z.object({
  /** Whether the pull request's CI is watched now. */
  watching: z.boolean(),
  /** `owner/repo#number`, lower-cased. */
  pullRequest: z.string(),
  /** What to tell the person. */
  message: z.string(),
});

/** Request and answer of {@link ManageBabySit}. */
export type ManageBabySitRequest = z.input<typeof manageBabySitRequest>;
export type ManageBabySitResponse = z.output<typeof manageBabySitResponse>;

/**
 * `manage_baby_sit`: a run starts or stops dispatch's CI watch of a pull request because a person
 * asked (`dispatch.<threadId>.baby-sit`). A started watch is the person's opt-in: it runs even on
 * a repository without CI auto-fix, with fix runs and messages on the asking run's thread.
 */
export const ManageBabySit = defineRequest({
  service: 'dispatch',
  op: 'baby-sit',
  request: manageBabySitRequest,
  response: manageBabySitResponse,
  description: "Start or stop watching a pull request's CI on a person's request.",
});
