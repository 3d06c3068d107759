import {
  RunFinishedV1,
  RunStartedV1,
  RunStepV1,
  RunSubagentV1,
  type DataOf,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type { z } from 'zod';
import { jsonPath } from './traj-parser.js';

/** One indexed run event, as the dashboard's `run_events` table holds it. */
export interface RunEventInput {
  /** `evt.run.started`, `evt.run.step`, `evt.run.finished`; other types are ignored. */
  type: string;
  /** The event's position on its stream (named in errors). */
  sequence?: number;
  runId?: string | null;
  data: unknown;
}

export type RunStartedData = DataOf<typeof RunStartedV1>;
export type RunStepData = DataOf<typeof RunStepV1>;
export type RunFinishedData = DataOf<typeof RunFinishedV1>;
export type RunSubagentData = DataOf<typeof RunSubagentV1>;

/** The actor of a subagent's steps: `subagent:<its run id>`. */
const SUBAGENT_ACTOR = /^subagent:(.+)$/;

/** A subagent of the run (the `task` tool): its child run's steps, and what framed them. */
export interface SubagentRunEvents {
  runId: string;
  started: RunSubagentData | undefined;
  finished: RunSubagentData | undefined;
  steps: RunStepData[];
}

/** One run's events, validated and put in order. */
export interface RunEventsOfRun {
  started: RunStartedData;
  /** The run's own steps (its subagents' are under `subagents`). */
  steps: RunStepData[];
  finished: RunFinishedData;
  /** Its subagents, in the order they started. */
  subagents: SubagentRunEvents[];
}

/** Steps in step order, one per number (a step published twice is the same step). */
function inOrder(steps: readonly RunStepData[]): RunStepData[] {
  const byStep = new Map<number, RunStepData>();
  for (const step of steps) byStep.set(step.step, step);
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}

/** Groups the subagents' steps and events by subagent, in the order each first appears. */
function subagentsOf(
  steps: readonly RunStepData[],
  framing: readonly RunSubagentData[],
): SubagentRunEvents[] {
  const byRun = new Map<string, SubagentRunEvents>();
  const of = (runId: string) => {
    const found = byRun.get(runId) ?? { runId, started: undefined, finished: undefined, steps: [] };
    byRun.set(runId, found);
    return found;
  };
  for (const event of framing) of(event.subagentRunId)[event.phase] = event;
  for (const step of steps) of(SUBAGENT_ACTOR.exec(step.actor)?.[1] ?? '').steps.push(step);
  return [...byRun.values()].map((subagent) => ({ ...subagent, steps: inOrder(subagent.steps) }));
}

function where(event: RunEventInput, index: number): string {
  return event.sequence === undefined
    ? `event #${index}`
    : `event #${index} (sequence ${event.sequence})`;
}

function parseData<S extends z.ZodType>(
  schema: S,
  event: RunEventInput,
  index: number,
): z.output<S> {
  const result = schema.safeParse(event.data);
  if (result.success) return result.data;
  const problems = result.error.issues
    .map((issue) => `${jsonPath(['data', ...issue.path])}: ${issue.message}`)
    .join('; ');
  throw new AppError(
    'BAD_REQUEST',
    `${where(event, index)} ${event.type} is malformed: ${problems}`,
    {
      details: { index, sequence: event.sequence, type: event.type },
    },
  );
}

function requireOne<T>(found: T[], what: string, runId: string): T {
  const [first, ...rest] = found;
  if (first === undefined) {
    throw new AppError('PRECONDITION_FAILED', `run ${runId} has no ${what} event`, {
      details: { runId, missing: what },
    });
  }
  if (rest.length > 0) {
    throw new AppError('BAD_REQUEST', `run ${runId} has ${found.length} ${what} events`, {
      details: { runId, count: found.length },
    });
  }
  return first;
}

/**
 * Validates one run's events against their contracts and sorts its steps by step number.
 * @throws AppError BAD_REQUEST for a malformed event (naming its position) or events of several
 *   runs; PRECONDITION_FAILED when the run has no start or has not finished yet.
 */
export function readRunEvents(events: readonly RunEventInput[]): RunEventsOfRun {
  const started: RunStartedData[] = [];
  const steps: RunStepData[] = [];
  const finished: RunFinishedData[] = [];
  const subagents: RunSubagentData[] = [];
  events.forEach((event, index) => {
    if (event.type === RunStartedV1.type)
      started.push(parseData(RunStartedV1.dataSchema, event, index));
    else if (event.type === RunStepV1.type)
      steps.push(parseData(RunStepV1.dataSchema, event, index));
    else if (event.type === RunFinishedV1.type)
      finished.push(parseData(RunFinishedV1.dataSchema, event, index));
    else if (event.type === RunSubagentV1.type)
      subagents.push(parseData(RunSubagentV1.dataSchema, event, index));
  });
  const runIds = new Set(
    [...started, ...steps, ...finished, ...subagents].map((data) => data.runId),
  );
  if (runIds.size > 1) {
    throw new AppError(
      'BAD_REQUEST',
      `events of ${runIds.size} runs given; pass one run's events`,
      {
        details: { runIds: [...runIds] },
      },
    );
  }
  const runId = [...runIds][0] ?? '(none)';
  const own = steps.filter((step) => !SUBAGENT_ACTOR.test(step.actor));
  return {
    started: requireOne(started, RunStartedV1.type, runId),
    steps: inOrder(own),
    finished: requireOne(finished, RunFinishedV1.type, runId),
    subagents: subagentsOf(
      steps.filter((step) => SUBAGENT_ACTOR.test(step.actor)),
      subagents,
    ),
  };
}
