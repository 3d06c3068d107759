import { AppError } from '@caravel/errors';
import { isExitStatus } from '../loop/exit-status.js';
import type { ModelStats } from '../loop/limit-guard.js';
import {
  readRunEvents,
  type RunEventInput,
  type RunEventsOfRun,
  type RunStartedData,
  type RunStepData,
} from './from-events.parse.js';
import { jsonPath } from './traj-parser.js';
import { trajSchema, type Traj } from './traj.schema.js';
import { buildTrajectory, type StepRecord } from './trajectory-builder.js';
import { withQueriesAndState } from './from-events.state.js';

/** The agent name written on history items unless told otherwise. */
const DEFAULT_AGENT = 'caravel';

/** What the `submit` tool answers when the working tree had no change (no submission). */
const EMPTY_SUBMISSION_PREFIX = 'Submitted with no changes';

/** Options of {@link trajectoryFromEvents}. */
export interface TrajectoryFromEventsOptions {
  /** The agent name on history items (default `caravel`). */
  agent?: string;
}

/**
 * A run's starting point as SWE-agent's `RunSingleConfig` (what `sweagent run-replay` validates,
 * with `extra="forbid"`): `env.repo` (a GitHub URL or a local path, and the base commit),
 * `agent.model.name`, `problem_statement`. Caravel's own fields are in {@link CaravelRunInfo}.
 */
export interface CaravelReplayConfig {
  env: {
    repo:
      | { type: 'github'; github_url: string; base_commit: string }
      | { type: 'local'; path: string; base_commit: string };
  };
  agent: { model: { name: string }; tools: { parse_function: { type: 'function_calling' } } };
  problem_statement: { type: 'text'; text: string; id: string };
}

/** What a Caravel `.traj` keeps at its top level under `caravel` (SWE-agent ignores it). */
export interface CaravelRunInfo {
  thread_id: string;
  run_id: string;
  runner: string;
  repository: {
    owner: string | null;
    name: string | null;
    clone_url: string | null;
    base_branch: string | null;
    base_commit: string | null;
    branch: string | null;
  };
  model: string | null;
}

const GITHUB_URL = /^https:\/\/github\.com\/[^/]+\/[^/]+?(\.git)?$/;

function replayConfigOf(started: RunStartedData): CaravelReplayConfig {
  const cloneUrl = started.repository?.cloneUrl ?? '';
  const baseCommit = started.baseCommit ?? 'HEAD';
  return {
    env: {
      repo: GITHUB_URL.test(cloneUrl)
        ? { type: 'github', github_url: cloneUrl.replace(/\.git$/, ''), base_commit: baseCommit }
        : { type: 'local', path: cloneUrl, base_commit: baseCommit },
    },
    agent: {
      model: { name: started.model ?? 'unknown' },
      tools: { parse_function: { type: 'function_calling' } },
    },
    problem_statement: { type: 'text', text: started.prompt ?? '', id: started.threadId },
  };
}

function runInfoOf(started: RunStartedData): CaravelRunInfo {
  const repository = started.repository;
  return {
    thread_id: started.threadId,
    run_id: started.runId,
    runner: started.runner,
    repository: {
      owner: repository?.owner ?? null,
      name: repository?.name ?? null,
      clone_url: repository?.cloneUrl ?? null,
      base_branch: repository?.baseBranch ?? null,
      base_commit: started.baseCommit ?? null,
      branch: started.branch ?? null,
    },
    model: started.model ?? null,
  };
}

/** A tool call in the OpenAI / SWE-agent function-calling shape. */
function functionCall(call: RunStepData['toolCalls'][number]): Record<string, unknown> {
  return {
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  };
}

function addUsage(stats: ModelStats, step: RunStepData): ModelStats {
  return {
    instanceCost: stats.instanceCost + (step.usage?.costUsd ?? 0),
    tokensSent: stats.tokensSent + (step.usage?.inputTokens ?? 0),
    tokensReceived: stats.tokensReceived + (step.usage?.outputTokens ?? 0),
    // A person's step (takeover) is not a model call.
    apiCalls: stats.apiCalls + (step.actor === 'agent' ? 1 : 0),
  };
}

/** The answers refused before a step's own, each a trajectory step of its own (not history). */
function failedAttemptRecords(step: RunStepData): StepRecord[] {
  return step.failedAttempts.flatMap((attempt): StepRecord[] => [
    {
      kind: 'model_response',
      query: [],
      response: attempt.content,
      thought: attempt.content,
      action: attempt.toolCalls
        .map((call) => `${call.name} ${JSON.stringify(call.args)}`)
        .join('\n'),
    },
    {
      kind: 'requery',
      failure: { kind: attempt.failure, message: attempt.message },
      message: attempt.message,
    },
  ]);
}

/** A step made only of refused answers: the run ended (`exit_format`) before one was accepted. */
function onlyRefused(step: RunStepData): boolean {
  return (
    step.failedAttempts.length > 0 &&
    step.thought === '' &&
    step.action === '' &&
    step.toolCalls.length === 0
  );
}

function stepRecords(step: RunStepData, stats: ModelStats): StepRecord[] {
  if (onlyRefused(step)) return [...failedAttemptRecords(step), { kind: 'cost', stats }];
  const records: StepRecord[] = [
    ...failedAttemptRecords(step),
    {
      kind: 'model_response',
      query: [],
      response: step.thought,
      thought: step.thought,
      action: step.action,
    },
  ];
  if (step.toolCalls.length > 0) {
    records.push({
      kind: 'tool_call',
      toolCalls: step.toolCalls.map(functionCall),
      toolCallIds: step.toolCalls.map((call) => call.id),
    });
  }
  records.push({ kind: 'observation', observation: step.observation, executionTime: 0 });
  records.push({ kind: 'cost', stats });
  return records;
}

/** The diff the last successful `submit` call returned; null when it had no change or none ran. */
export function submissionOfSteps(steps: readonly RunStepData[]): string | null {
  const submits = steps.flatMap((step) =>
    step.results.filter((result) => result.name === 'submit' && result.status === 'success'),
  );
  const last = submits.at(-1);
  if (last === undefined || last.content.startsWith(EMPTY_SUBMISSION_PREFIX)) return null;
  return last.content;
}

function recordsOf(run: RunEventsOfRun, agent: string): StepRecord[] {
  const { started, steps, finished } = run;
  if (!isExitStatus(finished.exitStatus)) {
    throw new AppError(
      'BAD_REQUEST',
      `run ${started.runId}: unknown exit status '${finished.exitStatus}'`,
    );
  }
  const records: StepRecord[] = [];
  if (started.systemPrompt !== undefined) {
    records.push({
      kind: 'message',
      item: {
        role: 'system',
        content: started.systemPrompt,
        agent,
        message_type: 'system_prompt',
      },
    });
  }
  if (started.prompt !== undefined) {
    records.push({
      kind: 'message',
      item: { role: 'user', content: started.prompt, agent, message_type: 'user' },
    });
  }
  let stats: ModelStats = { instanceCost: 0, tokensSent: 0, tokensReceived: 0, apiCalls: 0 };
  for (const step of steps) {
    stats = addUsage(stats, step);
    records.push(...stepRecords(step, stats));
  }
  const clean = finished.exitStatus === 'submitted' || finished.summary === '';
  records.push({
    kind: 'exit',
    exitStatus: finished.exitStatus,
    // The runner reports the final patch (autosubmissions included); older events only had steps.
    submission: finished.submission === undefined ? submissionOfSteps(steps) : finished.submission,
    ...(clean ? {} : { observation: finished.summary }),
  });
  return records;
}

/** Keeps what SWE-agent's step has no field for: the exact calls, each result, usage, actor. */
function annotate(traj: Traj, steps: readonly RunStepData[]): void {
  let index = 0;
  steps.forEach((step) => {
    index += step.failedAttempts.length;
    if (onlyRefused(step)) return;
    const target = traj.trajectory[index];
    index += 1;
    if (target === undefined) return;
    target.extra_info = {
      caravel: {
        step: step.step,
        actor: step.actor,
        tool_calls: step.toolCalls,
        results: step.results,
        ...(step.usage === undefined ? {} : { usage: step.usage }),
      },
    };
  });
}

/**
 * Turns one run's indexed events (`evt.run.started`, `evt.run.step`…, `evt.run.finished`) into a
 * SWE-agent `.traj`: one step per model turn, whose action is the readable form of its tool calls
 * and whose observation is their results; the calls themselves in the history (function-calling
 * shape) and in `extra_info.caravel`; `info.submission` from the last `submit` result;
 * `info.model_stats` summed from each step's usage; the system prompt and task opening the
 * history; each step's `query` (the messages sent) and `state` (`working_dir`, `open_file`); the
 * starting point in `replay_config` (SWE-agent's `RunSingleConfig`) and the run's identity under
 * the top-level `caravel`.
 * @throws AppError BAD_REQUEST for malformed events, PRECONDITION_FAILED for a run that has no
 *   start or has not finished.
 */
export function trajectoryFromEvents(
  events: readonly RunEventInput[],
  options: TrajectoryFromEventsOptions = {},
): Traj {
  const run = readRunEvents(events);
  const agent = options.agent ?? DEFAULT_AGENT;
  const traj = buildTrajectory(recordsOf(run, agent), {
    environment: run.started.runner,
    replayConfig: JSON.stringify(replayConfigOf(run.started)),
    agent,
  });
  annotate(traj, run.steps);
  withQueriesAndState(traj);
  const checked = trajSchema.safeParse({ ...traj, caravel: runInfoOf(run.started) });
  if (!checked.success) {
    const problems = checked.error.issues.map((i) => `${jsonPath(i.path)}: ${i.message}`);
    throw new AppError(
      'INTERNAL',
      `run ${run.started.runId}: invalid .traj: ${problems.join('; ')}`,
    );
  }
  return checked.data;
}
