import { EVAL_RUN_KINDS, EVAL_SCHEDULE_STATES } from '@caravel/db';
import { z } from 'zod';
import { evalScheduleHistoryResponse, evalScheduleResponse } from './eval-schemas.js';
import type { RouteSpec } from './route-spec.js';

/** A suite, set or configuration name, as `caravel eval` takes it. */
export const evalName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/, 'letters, digits, . _ - (at most 80)');

/** Settings laid over a run's environment: variable names to values. */
export const evalSettings = z.record(
  z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'an environment variable name'),
  z.string().max(4000),
);

const model = z.string().trim().min(1).max(200);
const hour = z.number().int().min(0).max(23);
const attempts = z.number().int().min(1).max(100);

/**
 * Where the suite is, on the machine whose embedded host runs it: an absolute path (a folder of
 * Harbor tasks, or a review set's folder or file), or for a review set an http(s) URL.
 */
const source = z
  .string()
  .trim()
  .min(1)
  .max(1000)
  .refine(
    (value) => value.startsWith('/') || /^https?:\/\/\S+$/.test(value),
    'an absolute path, or an http(s) URL of a review set',
  );

const scheduleBody = z
  .strictObject({
    name: evalName,
    kind: z.enum(EVAL_RUN_KINDS),
    source,
    config: evalName,
    model,
    settings: evalSettings.default({}),
    attempts: attempts.default(1),
    hour,
  })
  .refine((body) => body.kind === 'review' || !/^https?:/.test(body.source), {
    path: ['source'],
    message: 'a Harbor suite is a folder (an absolute path), not a URL',
  })
  .refine((body) => body.kind === 'harbor' || body.attempts === 1, {
    path: ['attempts'],
    message: 'a review set is reviewed once a night (attempts 1)',
  });

/** Scheduled suites: registered by admins, run each night, their history (docs/evals.md). */
export const EVAL_SCHEDULE_ROUTES = {
  listEvalSchedules: {
    method: 'get',
    path: '/api/evals/schedules',
    summary: 'Scheduled eval suites (run each night by the embedded host), by name',
    access: 'read',
    response: z.array(evalScheduleResponse),
  },
  registerEvalSchedule: {
    method: 'post',
    path: '/api/evals/schedules',
    summary:
      'Registers a suite to run each night at an hour (UTC): Harbor tasks or a labelled review set (admins)',
    access: 'admin',
    body: scheduleBody,
    status: 201,
    response: evalScheduleResponse,
  },
  changeEvalSchedule: {
    method: 'put',
    path: '/api/evals/schedules/{id}',
    summary:
      "Pauses, resumes or changes a scheduled suite's hour, attempts, model or settings (admins)",
    access: 'admin',
    params: z.object({ id: z.uuid() }),
    body: z
      .strictObject({
        state: z.enum(EVAL_SCHEDULE_STATES).optional(),
        hour: hour.optional(),
        attempts: attempts.optional(),
        model: model.optional(),
        settings: evalSettings.optional(),
      })
      .refine((body) => Object.keys(body).length > 0, 'nothing to change'),
    response: evalScheduleResponse,
  },
  evalScheduleHistory: {
    method: 'get',
    path: '/api/evals/schedules/{id}/history',
    summary:
      "A scheduled suite's runs over time, the newest night first, with resolve rate or F1 and their 95% intervals",
    access: 'read',
    params: z.object({ id: z.uuid() }),
    query: z.strictObject({ limit: z.coerce.number().int().min(1).max(366).default(30) }),
    response: evalScheduleHistoryResponse,
  },
} as const satisfies Record<string, RouteSpec>;
