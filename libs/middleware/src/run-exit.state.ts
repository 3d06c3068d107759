import { z } from 'zod';

/** How a middleware ended a run early (absent when the run ended on its own). */
export const RUN_EXIT_STATUSES = [
  'exit_model_call_limit',
  'exit_environment_error',
  'exit_no_reply',
] as const;

/** One early-exit status, read by the runner from the final state's `exitStatus`. */
export type RunExitStatus = (typeof RUN_EXIT_STATUSES)[number];

/**
 * The state field every exiting middleware shares. LangChain keeps the first declaration of a key,
 * so declaring the same field in several middleware schemas is safe.
 */
export const exitStatusField = z.enum(RUN_EXIT_STATUSES).optional();
