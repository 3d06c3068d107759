import { z } from 'zod';
import {
  trajContentSchema,
  trajHistoryItemSchema,
  trajInfoSchema,
  trajModelStatsSchema,
  trajSchema,
  trajStepSchema,
} from './traj.schema.js';

/*
 * The reading side of the `.traj` schema: lenient where SWE-agent's own files vary between
 * versions (older files have no `query`, a running file may lack `model_stats`, batch runs
 * write `replay_config` as an object), strict on what replay and the dashboard need (every
 * step's action, observation, response and thought; every message's role and content).
 */

const record = z.record(z.string(), z.unknown());

/** Assistant messages with tool calls may carry `null` content; read it as empty text. */
const readHistoryItemSchema = trajHistoryItemSchema.extend({
  content: trajContentSchema.nullable().transform((content) => content ?? ''),
  thought: z
    .string()
    .nullish()
    .transform((thought) => thought ?? undefined),
});

const readStepSchema = trajStepSchema.extend({
  execution_time: z.number().nonnegative().default(0),
  state: record.default({}),
  query: z.array(readHistoryItemSchema).default([]),
  extra_info: record.default({}),
});

const readModelStatsSchema = trajModelStatsSchema.extend({
  tokens_sent: z.number().int().nonnegative().default(0),
  tokens_received: z.number().int().nonnegative().default(0),
});

const readInfoSchema = trajInfoSchema.extend({
  submission: z.string().nullable().default(null),
  exit_status: z.string().nullable().default(null),
  model_stats: readModelStatsSchema.default({
    instance_cost: 0,
    tokens_sent: 0,
    tokens_received: 0,
    api_calls: 0,
  }),
  rloop_model_stats: readModelStatsSchema.optional(),
});

const readAttemptSchema = z.looseObject({
  trajectory: z.array(readStepSchema),
  history: z.array(readHistoryItemSchema).default([]),
  info: readInfoSchema.prefault({}),
});

/** What the parser accepts; its output has the shape of {@link trajSchema}. */
export const trajReadSchema = trajSchema.extend({
  trajectory: z.array(readStepSchema),
  history: z.array(readHistoryItemSchema).default([]),
  info: readInfoSchema.prefault({}),
  replay_config: z
    .union([z.string(), record])
    .nullable()
    .default(null)
    .transform((config) =>
      config === null || typeof config === 'string' ? config : JSON.stringify(config),
    ),
  environment: z.string().default(''),
  attempts: z.array(readAttemptSchema).optional(),
});
