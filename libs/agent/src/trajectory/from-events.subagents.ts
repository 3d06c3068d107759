import type { ModelStats } from '../loop/limit-guard.js';
import { isExitStatus, type ExitStatus } from '../loop/exit-status.js';
import type { SubagentRunEvents } from './from-events.parse.js';
import { withQueriesAndState } from './from-events.state.js';
import { addUsage, annotate, stepRecords } from './from-events.steps.js';
import type { Traj } from './traj.schema.js';
import { buildTrajectory, type StepRecord } from './trajectory-builder.js';

/** One subagent of a run in its `.traj`: a child run, under the top-level `caravel.subagents`. */
export interface CaravelSubagentTraj {
  run_id: string;
  /** The parent's `task` call whose result is this subagent's answer. */
  tool_call_id: string | null;
  model: string | null;
  description: string | null;
  exit_status: string;
  /** Its answer (the parent's tool result). */
  result: string | null;
  trajectory: Traj['trajectory'];
  history: Traj['history'];
  info: Traj['info'];
}

/** A subagent that has no `finished` event was cut short with its run (an interrupt, a crash). */
const UNFINISHED: ExitStatus = 'exit_interrupted';

function exitOf(subagent: SubagentRunEvents): ExitStatus {
  const status = subagent.finished?.exitStatus;
  return status !== undefined && isExitStatus(status) ? status : UNFINISHED;
}

function childTraj(subagent: SubagentRunEvents, environment: string, agent: string): Traj {
  const records: StepRecord[] = [];
  const prompt = subagent.started?.prompt;
  if (prompt !== undefined) {
    records.push({
      kind: 'message',
      item: { role: 'user', content: prompt, agent, message_type: 'user' },
    });
  }
  let stats: ModelStats = { instanceCost: 0, tokensSent: 0, tokensReceived: 0, apiCalls: 0 };
  for (const step of subagent.steps) {
    stats = addUsage(stats, step);
    records.push(...stepRecords(step, stats));
  }
  const exitStatus = exitOf(subagent);
  const result = subagent.finished?.result;
  records.push({
    kind: 'exit',
    exitStatus,
    submission: null,
    ...(exitStatus === 'submitted' || result === undefined ? {} : { observation: result }),
  });
  const traj = buildTrajectory(records, { environment, replayConfig: null, agent });
  annotate(traj, subagent.steps);
  withQueriesAndState(traj);
  return traj;
}

/**
 * Each subagent of a run as a child run: its own trajectory, history and info (its model's
 * stats), with the model it ran on, what it was asked (the history's first message) and its
 * answer.
 */
export function subagentTrajectories(
  subagents: readonly SubagentRunEvents[],
  environment: string,
  agent: string,
): CaravelSubagentTraj[] {
  return subagents.map((subagent) => {
    const { trajectory, history, info } = childTraj(subagent, environment, agent);
    const framing = subagent.started ?? subagent.finished;
    return {
      run_id: subagent.runId,
      tool_call_id: framing?.toolCallId ?? null,
      model: framing?.model ?? null,
      description: framing?.description ?? null,
      exit_status: exitOf(subagent),
      result: subagent.finished?.result ?? null,
      trajectory,
      history,
      info,
    };
  });
}
