import { z } from 'zod';
import { defineMessage } from '../define-message.js';
import { exitStatus, runId, threadId } from './common.js';

const FIXTURE_THREAD = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';
const FIXTURE_RUN = '0b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a10';
const FIXTURE_SUBAGENT = '7d3e9a10-5b2c-5f48-9e61-0a1b2c3d4e5f';

/** Where one item of an agent's todo list stands. */
export const todoStatus = z.enum(['pending', 'in_progress', 'completed']);

/** One item of an agent's todo list. */
export const todoItem = z.strictObject({
  content: z.string().trim().min(1).max(500),
  status: todoStatus,
});

/** The agent's todo list as it last wrote it (`write_todos`): the whole list, each time. */
export const RunTodosV1 = defineMessage({
  kind: 'evt',
  name: 'run.todos',
  version: 1,
  description: "The run's todo list, as the agent last wrote it (replaces the previous list).",
  data: z.object({
    threadId,
    runId,
    /** The `write_todos` call that wrote it (Caravel's id of the call). */
    toolCallId: z.string().min(1),
    todos: z.array(todoItem).max(100),
  }),
  fixture: {
    threadId: FIXTURE_THREAD,
    runId: FIXTURE_RUN,
    toolCallId: 'c0-1-0',
    todos: [
      { content: 'Reproduce the flaky test', status: 'completed' },
      { content: 'Fix the race in the parser', status: 'in_progress' },
    ],
  },
});

/**
 * A subagent the run delegated a subtask to (`task`) began or ended. Its steps are the run's
 * `evt.run.step` events whose actor is `subagent:<subagentRunId>`: this event says what it was
 * asked, on which model, and what it answered.
 */
export const RunSubagentV1 = defineMessage({
  kind: 'evt',
  name: 'run.subagent',
  version: 1,
  description: 'A subagent of a run (the task tool) began or ended.',
  data: z.object({
    threadId,
    /** The run that delegated. */
    runId,
    /** The subagent's own run id (its child run). */
    subagentRunId: runId,
    /** The parent's `task` call. */
    toolCallId: z.string().min(1),
    phase: z.enum(['started', 'finished']),
    /** The subagent's model, e.g. `anthropic:claude-haiku-4-5`. */
    model: z.string().min(1),
    description: z.string(),
    /** What the subagent was told (on `started`). */
    prompt: z.string().optional(),
    /** How it ended (on `finished`): `submitted` when it answered, else the limit that stopped it. */
    exitStatus: exitStatus.optional(),
    /** Its answer, the parent's tool result (on `finished`). */
    result: z.string().optional(),
    modelCalls: z.number().int().nonnegative().optional(),
    costUsd: z.number().nonnegative().optional(),
  }),
  fixture: {
    threadId: FIXTURE_THREAD,
    runId: FIXTURE_RUN,
    subagentRunId: FIXTURE_SUBAGENT,
    toolCallId: 'c0-2-0',
    phase: 'started',
    model: 'anthropic:claude-haiku-4-5',
    description: 'find the parser tests',
    prompt: 'List the test files that exercise the parser.',
  },
});
