import { AppError } from '@caravel/errors';
import { TASK_TOOL_NAME } from '@caravel/tools';
import { z } from 'zod';
import { extractReplayActions, type ReplayAction } from '../trajectory/replay-actions.js';
import { jsonPath } from '../trajectory/traj-parser.js';
import { trajStepSchema, type Traj, type TrajStep } from '../trajectory/traj.schema.js';
import { commandsOfAnswer, MINI_SUBMIT_MARKERS, sweActionFormatOf } from './swe-actions.js';
import type { SweCommandSpec } from './swe-commands.js';

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
  /**
   * mini-swe-agent's submission: when the command succeeds and its output's first line is one
   * of these markers, the rest of the output is the submission and the replay ends.
   */
  submitMarkers?: readonly string[];
  /**
   * SWE-agent's protocol with its own tools installed: when the output holds
   * `<<SWE_AGENT_SUBMISSION>>`, the submission is its patch file and the replay ends.
   */
  sweSubmission?: boolean;
  /** A call a subagent (`task`) made: its child run, and the step and call there. */
  subagent?: { runId: string; step: number; call: number };
  /**
   * A `task` call whose subagent's calls replay before it: the subagent's answer as recorded,
   * which is its observation (a replay has no model to answer again).
   */
  answer?: string;
}

/** How SWE-agent's actions are turned into calls (see {@link actionsFromTraj}). */
export interface SweActionOptions {
  /**
   * The commands of the bundles installed for the replay: function calls to them are written
   * with their `signature` and `argument_format`s, and their end markers guarded.
   */
  commands?: readonly SweCommandSpec[];
  /**
   * The bundles provide `submit` (SWE-agent's own): every `submit` runs as the command it is
   * (a review stage included) and any command printing the submission sentinel ends the replay.
   */
  bundleSubmit?: boolean;
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

/** A run's subagents as Caravel writes them (`caravel.subagents`, see `trajectoryFromEvents`). */
const subagentsSchema = z.array(
  z.looseObject({
    run_id: z.string(),
    tool_call_id: z.string().nullable(),
    result: z.string().nullable(),
    trajectory: z.array(trajStepSchema),
  }),
);
type RecordedSubagent = z.infer<typeof subagentsSchema>[number];

/** The file's subagents by the `task` call each answered. */
function subagentsOf(traj: Traj, source: string): Map<string, RecordedSubagent> {
  const raw = (traj['caravel'] as { subagents?: unknown } | undefined)?.subagents;
  if (raw === undefined) return new Map();
  const parsed = subagentsSchema.safeParse(raw);
  if (!parsed.success) {
    const where = ['caravel', 'subagents'];
    const problems = parsed.error.issues.map(
      (i) => `${jsonPath([...where, ...i.path])}: ${i.message}`,
    );
    throw new AppError('BAD_REQUEST', `${source}: ${problems.join('; ')}`, {
      details: { file: source },
    });
  }
  return new Map(
    parsed.data.flatMap((child) => (child.tool_call_id ? [[child.tool_call_id, child]] : [])),
  );
}

function stepActions(
  steps: readonly TrajStep[],
  source: string,
  subagents: ReadonlyMap<string, RecordedSubagent>,
): RecordedAction[] {
  return steps.flatMap((step, index) => {
    const recorded = caravelStep(step, index, source);
    if (recorded === null) return [];
    return recorded.tool_calls.flatMap((call, position) => {
      const action: RecordedAction = {
        step: recorded.step,
        call: position,
        name: call.name,
        args: call.args,
        recorded: recorded.results.find((r) => r.toolCallId === call.id)?.content ?? null,
      };
      const child = call.name === TASK_TOOL_NAME ? subagents.get(call.id) : undefined;
      if (child === undefined) return [action];
      // The subagent worked in the run's sandbox: its calls replay there, before its answer.
      const inner = stepActions(child.trajectory, `${source} subagent ${child.run_id}`, new Map());
      return [
        ...inner.map((made) => ({
          ...made,
          step: action.step,
          call: action.call,
          subagent: { runId: child.run_id, step: made.step, call: made.call },
        })),
        { ...action, answer: child.result ?? action.recorded ?? '' },
      ];
    });
  });
}

/** A Caravel file's calls; a `task` call's subagent's calls replay in its place. */
function caravelActions(traj: Traj, source: string): RecordedAction[] {
  return stepActions(traj.trajectory, source, subagentsOf(traj, source));
}

/** The raw observation of the trajectory step that holds `answer`, from `cursor` on. */
function recordedStep(traj: Traj, answer: ReplayAction, cursor: number): number {
  return traj.trajectory.findIndex(
    (step, i) => i >= cursor && step.action === answer.action && step.response === answer.response,
  );
}

/**
 * SWE-agent's and mini-swe-agent's actions are bash commands (their tools are installed as
 * commands), parsed from each answer as a live run of the recorded format does (see
 * {@link commandsOfAnswer}), so each runs as `execute`. The last `submit` is our submission;
 * an earlier one was a review stage (`review_on_submit`) and is left out. mini-swe-agent's
 * commands end the replay when their output starts with its submission marker. The raw
 * observation is read from the trajectory step that holds the same answer.
 */
function sweAgentActions(traj: Traj, options: SweActionOptions): RecordedAction[] {
  const answers = extractReplayActions(traj);
  const format = sweActionFormatOf(traj, answers);
  const actions: RecordedAction[] = [];
  let cursor = 0;
  for (const [index, answer] of answers.entries()) {
    const found = recordedStep(traj, answer, cursor);
    if (found !== -1) cursor = found + 1;
    const recorded = found === -1 ? null : (traj.trajectory[found]?.observation ?? null);
    const commands = commandsOfAnswer(answer, format, options.commands);
    if (commands.some((command) => EXIT_ACTION.test(command.trim()))) break;
    commands.forEach((command, call) => {
      if (command.trim() === '') return;
      const base = { step: index, call, recorded: commands.length === 1 ? recorded : null };
      actions.push(
        command.trim() === 'submit' && options.bundleSubmit !== true
          ? { ...base, name: 'submit', args: {}, recorded: null }
          : {
              ...base,
              name: 'execute',
              args: { command },
              ...(format === 'mini_bash' ? { submitMarkers: MINI_SUBMIT_MARKERS } : {}),
              ...(options.bundleSubmit === true ? { sweSubmission: true } : {}),
            },
      );
    });
  }
  if (options.bundleSubmit === true) return actions;
  const lastSubmit = actions.findLastIndex((action) => action.name === 'submit');
  return actions.filter((action, i) => action.name !== 'submit' || i === lastSubmit);
}

/**
 * The tool calls a trajectory recorded, in order. Caravel's files give the exact calls and
 * results (`extra_info.caravel`), a `task` call's subagent's calls (`caravel.subagents`) just
 * before the call, which then answers as the subagent did; SWE-agent's and mini-swe-agent's give bash commands, parsed
 * and guarded as their live run did, mapped to `execute {command}` (the final `submit` to
 * `submit`, unless the replay's bundles provide it), stopping at an `exit` action.
 * @throws AppError BAD_REQUEST naming the file and JSON path of a malformed Caravel step.
 */
export function actionsFromTraj(
  traj: Traj,
  source: string,
  options: SweActionOptions = {},
): RecordedAction[] {
  return isCaravelTraj(traj) ? caravelActions(traj, source) : sweAgentActions(traj, options);
}
