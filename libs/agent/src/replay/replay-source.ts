import { AppError } from '@caravel/errors';
import { z } from 'zod';
import { extractReplayActions } from '../trajectory/replay-actions.js';
import { jsonPath } from '../trajectory/traj-parser.js';
import type { Traj, TrajStep } from '../trajectory/traj.schema.js';

/** One recorded tool call to execute again, in run order. */
export interface RecordedAction {
  /** The recorded step (model turn) it belongs to, and its position among that turn's calls. */
  step: number;
  call: number;
  /** A Caravel tool name (`execute`, `edit_file`, `submit`…). */
  name: string;
  args: Record<string, unknown>;
  /** What the run observed for this call; null when the recording does not say. */
  recorded: string | null;
}

/** A SWE-agent action that ends a run without a submission. */
const EXIT_ACTION = /^exit(_[a-z_]+)?$/;

/** What Caravel writes under a step's `extra_info.caravel` (see `trajectoryFromEvents`). */
const caravelStepSchema = z.object({
  step: z.number().int().nonnegative(),
  tool_calls: z.array(
    z.object({ id: z.string(), name: z.string(), args: z.record(z.string(), z.unknown()) }),
  ),
  results: z.array(z.object({ toolCallId: z.string(), content: z.string() })),
});

function caravelStep(step: TrajStep, index: number, source: string) {
  const raw = step.extra_info['caravel'];
  if (raw === undefined) return null;
  const parsed = caravelStepSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const where = ['trajectory', index, 'extra_info', 'caravel'];
  const problems = parsed.error.issues.map(
    (i) => `${jsonPath([...where, ...i.path])}: ${i.message}`,
  );
  throw new AppError('BAD_REQUEST', `${source}: ${problems.join('; ')}`, {
    details: { file: source, step: index },
  });
}

/** Whether the file was written by Caravel (its steps carry the exact tool calls). */
export function isCaravelTraj(traj: Traj): boolean {
  return traj.trajectory.some((step) => step.extra_info['caravel'] !== undefined);
}

function caravelActions(traj: Traj, source: string): RecordedAction[] {
  return traj.trajectory.flatMap((step, index) => {
    const recorded = caravelStep(step, index, source);
    if (recorded === null) return [];
    return recorded.tool_calls.map((call, position) => ({
      step: recorded.step,
      call: position,
      name: call.name,
      args: call.args,
      recorded: recorded.results.find((r) => r.toolCallId === call.id)?.content ?? null,
    }));
  });
}

/**
 * SWE-agent's actions are bash commands (its tools are installed as commands), so each runs as
 * `execute`; `submit` is our submission. The raw observation is read from the trajectory step
 * that holds the same answer (the history only has the shaped text).
 */
function sweAgentActions(traj: Traj): RecordedAction[] {
  const actions: RecordedAction[] = [];
  let cursor = 0;
  for (const [index, answer] of extractReplayActions(traj).entries()) {
    const command = (answer.action ?? '').trim();
    if (EXIT_ACTION.test(command)) break;
    const found = traj.trajectory.findIndex(
      (step, i) =>
        i >= cursor && step.action === answer.action && step.response === answer.response,
    );
    if (found !== -1) cursor = found + 1;
    if (command === '') continue;
    const recorded = found === -1 ? null : (traj.trajectory[found]?.observation ?? null);
    actions.push(
      command === 'submit'
        ? { step: index, call: 0, name: 'submit', args: {}, recorded: null }
        : { step: index, call: 0, name: 'execute', args: { command: answer.action }, recorded },
    );
  }
  return actions;
}

/**
 * The tool calls a `.traj` recorded, in order. Caravel's files give the exact calls and results
 * (`extra_info.caravel`); SWE-agent's give bash commands, mapped to `execute {command}` (and
 * `submit` to `submit`), stopping at an `exit` action.
 * @throws AppError BAD_REQUEST naming the file and JSON path of a malformed Caravel step.
 */
export function actionsFromTraj(traj: Traj, source: string): RecordedAction[] {
  return isCaravelTraj(traj) ? caravelActions(traj, source) : sweAgentActions(traj);
}
