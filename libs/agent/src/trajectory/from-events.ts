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
import { addUsage, annotate, stepRecords } from './from-events.steps.js';
import { subagentTrajectories } from './from-events.subagents.js';

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

/**
 * Turns one run's indexed events (`evt.run.started`, `evt.run.step`…, `evt.run.finished`) into a
 * SWE-agent `.traj`: one step per model turn, whose action is the readable form of its tool calls
 * and whose observation is their results; the calls themselves in the history (function-calling
 * shape) and in `extra_info.caravel`; `info.submission` from the last `submit` result;
 * `info.model_stats` summed from each step's usage; the system prompt and task opening the
 * history; each step's `query` (the messages sent) and `state` (`working_dir`, `open_file`); the
 * starting point in `replay_config` (SWE-agent's `RunSingleConfig`) and the run's identity under
 * the top-level `caravel`, with its subagents (`task`) as child runs in `caravel.subagents`.
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
  const subagents = subagentTrajectories(run.subagents, run.started.runner, agent);
  const caravel = {
    ...runInfoOf(run.started),
    ...(subagents.length > 0 ? { subagents } : {}),
  };
  const checked = trajSchema.safeParse({ ...traj, caravel });
  if (!checked.success) {
    const problems = checked.error.issues.map((i) => `${jsonPath(i.path)}: ${i.message}`);
    throw new AppError(
      'INTERNAL',
      `run ${run.started.runId}: invalid .traj: ${problems.join('; ')}`,
    );
  }
  return checked.data;
}
