import { z } from 'zod';

/*
 * SWE-agent's `.traj` format (1.1.0), as zod schemas. Objects are loose: fields we do not
 * model are kept, so a trajectory read from SWE-agent and written back loses nothing. These
 * schemas describe what Caravel writes; `traj-read.schema.ts` relaxes them for reading.
 */

const record = z.record(z.string(), z.unknown());

/** A message's content: a string, or a list of parts (`{type: "text", text}`, images...). */
export const trajContentSchema = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string() })),
]);

/** One message of the model-facing conversation (`history`) or of a step's `query`. */
export const trajHistoryItemSchema = z
  .looseObject({
    role: z.string().meta({ description: 'system | user | assistant | tool' }),
    content: trajContentSchema,
    agent: z.string().optional(),
    message_type: z.string().optional().meta({
      description:
        'system_prompt | demonstration | observation | action | user | assistant | thought',
    }),
    thought: z.string().optional(),
    action: z.string().nullable().optional(),
    tool_calls: z.array(record).nullable().optional(),
    tool_call_ids: z.array(z.string()).nullable().optional(),
    thinking_blocks: z.array(record).nullable().optional(),
    is_demo: z.boolean().optional(),
    tags: z.array(z.string()).optional(),
    cache_control: record.nullable().optional(),
  })
  .meta({ id: 'TrajHistoryItem' });

/** One step of the trajectory; a failed requery attempt is a step too. */
export const trajStepSchema = z
  .looseObject({
    action: z.string().meta({ description: 'The command that ran (or was rejected).' }),
    observation: z
      .string()
      .meta({ description: 'Raw command output; empty for a rejected attempt.' }),
    response: z.string().meta({ description: 'The raw model answer.' }),
    thought: z.string(),
    execution_time: z.number().nonnegative().meta({ description: 'Seconds the command ran.' }),
    state: record.meta({ description: 'State after the step (working_dir, open_file, diff...).' }),
    query: z
      .array(trajHistoryItemSchema)
      .meta({ description: 'The exact messages sent for this step.' }),
    extra_info: record,
  })
  .meta({ id: 'TrajStep' });

/** SWE-agent's `InstanceStats`. */
export const trajModelStatsSchema = z
  .looseObject({
    instance_cost: z.number().nonnegative(),
    tokens_sent: z.number().int().nonnegative(),
    tokens_received: z.number().int().nonnegative(),
    api_calls: z.number().int().nonnegative(),
  })
  .meta({ id: 'TrajModelStats' });

/** The summary of a run. */
export const trajInfoSchema = z
  .looseObject({
    swe_agent_hash: z.string().optional(),
    swe_agent_version: z.string().optional(),
    swe_rex_hash: z.string().optional(),
    swe_rex_version: z.string().optional(),
    submission: z.string().nullable(),
    exit_status: z
      .string()
      .nullable()
      .meta({ description: 'submitted | exit_* | submitted (exit_*)' }),
    edited_files30: z.string().optional(),
    edited_files50: z.string().optional(),
    edited_files70: z.string().optional(),
    model_stats: trajModelStatsSchema,
    review: z.unknown().optional(),
    best_attempt_idx: z.number().int().nonnegative().optional(),
    rloop_model_stats: trajModelStatsSchema.optional(),
    chooser: z.unknown().optional(),
  })
  .meta({ id: 'TrajAgentInfo' });

/** One attempt of a retry loop (`attempts` at the top level). */
export const trajAttemptSchema = z
  .looseObject({
    trajectory: z.array(trajStepSchema),
    history: z.array(trajHistoryItemSchema),
    info: trajInfoSchema,
  })
  .meta({ id: 'TrajAttempt' });

/** A whole `.traj` file. */
export const trajSchema = z
  .looseObject({
    trajectory: z.array(trajStepSchema),
    history: z.array(trajHistoryItemSchema),
    info: trajInfoSchema,
    replay_config: z
      .string()
      .nullable()
      .meta({ description: 'The run configuration as a JSON string.' }),
    environment: z.string(),
    attempts: z.array(trajAttemptSchema).optional(),
  })
  .meta({
    title: 'SWE-agent trajectory (.traj)',
    description: 'A run of a coding agent, SWE-agent 1.1 format.',
  });

export type TrajHistoryItem = z.infer<typeof trajHistoryItemSchema>;
export type TrajStep = z.infer<typeof trajStepSchema>;
export type TrajModelStats = z.infer<typeof trajModelStatsSchema>;
export type TrajInfo = z.infer<typeof trajInfoSchema>;
export type TrajAttempt = z.infer<typeof trajAttemptSchema>;
export type Traj = z.infer<typeof trajSchema>;
