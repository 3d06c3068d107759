import {
  distributedServiceSchema,
  documented,
  serviceConfigOf,
  type ServiceConfig,
} from '@caravel/config';
import { resolve } from 'node:path';
import { z } from 'zod';

/**
 * The keys of scheduled eval suites, read by the two processes that sweep them: `caravel start`
 * (embedded) and `caravel eval scheduler` (a team deployment on NATS and PostgreSQL).
 */
export const evalScheduleEnvSchema = z.object({
  EVAL_SCHEDULE_CHECK_MS: documented(z.coerce.number().int().min(1000).default(300_000), {
    description:
      'How often caravel start (or caravel eval scheduler) looks for scheduled eval suites whose night has come (docs/evals.md)',
  }),
  EVAL_SCHEDULE_DIR: documented(z.string().min(1).optional(), {
    description:
      "Where scheduled eval suites' nightly runs keep their files (default CARAVEL_DATA_DIR/evals; ./evals for caravel eval scheduler)",
  }),
  EVAL_SCHEDULE_CONCURRENCY: documented(z.coerce.number().int().min(1).max(64).default(2), {
    description: 'Attempts (or review cases) a scheduled eval suite runs at once',
  }),
});

/** The sweep's settings (`EVAL_SCHEDULE_CHECK_MS`, `EVAL_SCHEDULE_DIR`). */
export interface EvalScheduleSettings {
  readonly checkMs: number;
  /** Where each night's run keeps its files: `<dir>/<name>/<night>`. */
  readonly dir: string;
}

/** The sweep's settings and how many attempts a night runs at once. */
export type EvalSchedulesConfig = EvalScheduleSettings & { concurrency: number };

/** The parsed keys as the sweep's settings; `dir` resolved, `defaultDir` when unset. */
export function evalSchedulesConfigOf(
  env: z.output<typeof evalScheduleEnvSchema>,
  defaultDir: string,
): EvalSchedulesConfig {
  return {
    checkMs: env.EVAL_SCHEDULE_CHECK_MS,
    dir: resolve(env.EVAL_SCHEDULE_DIR ?? defaultDir),
    concurrency: env.EVAL_SCHEDULE_CONCURRENCY,
  };
}

/** `caravel eval scheduler`: the common service keys (port 3008) and the schedule keys. */
export const evalSchedulerConfigSchema = distributedServiceSchema(3008)
  .extend(evalScheduleEnvSchema.shape)
  .transform((env): { service: ServiceConfig; evalSchedules: EvalSchedulesConfig } => ({
    service: serviceConfigOf(env),
    evalSchedules: evalSchedulesConfigOf(env, 'evals'),
  }));
