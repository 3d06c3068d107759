import { errorObservation, type CaravelTool, type ToolSandbox } from '@caravel/tools';
import { AppError, toAppError, untilAborted } from '@caravel/errors';
import type { RecordedAction } from './replay-source.js';

/** How a replayed call's observation compares with the recorded one. */
export type ReplayVerdict = 'same' | 'differs' | 'unrecorded';

/** What one replayed call did. */
export interface ReplayStepOutcome {
  action: RecordedAction;
  /** False when the tool answered with an error (or does not exist). */
  ok: boolean;
  observation: string;
  verdict: ReplayVerdict;
  /** The state after the call (SWE-agent's state commands), when the replay reads one. */
  state?: Record<string, unknown> | null;
}

/** Everything a replay produced. */
export interface ReplayResult {
  outcomes: ReplayStepOutcome[];
  /** The final patch: the `submit` result, or the sandbox's diff when nothing was submitted. */
  patch: string | null;
  /** True when a `submit` call produced the patch. */
  submitted: boolean;
  /** The outcomes whose observation differs from the recording. */
  mismatches: ReplayStepOutcome[];
  /** True when the replay stopped at the first mismatch (`stopOnMismatch`). */
  stoppedEarly: boolean;
}

/** Options of {@link replayActions}. */
export interface ReplayOptions {
  /** Stop at the first observation that differs (default false: report and go on). */
  stopOnMismatch?: boolean;
  /** Called after each call, e.g. to print progress. */
  onStep?: (outcome: ReplayStepOutcome) => void;
  /** Read after each call and kept as its outcome's `state` (SWE-agent's bundles' state). */
  stateAfter?: () => Promise<Record<string, unknown> | null>;
  /**
   * Reads SWE-agent's patch file when an action marked `sweSubmission` printed
   * `<<SWE_AGENT_SUBMISSION>>` (null or blank: an empty submission).
   */
  readSubmission?: () => Promise<string | null>;
  /**
   * Stops the replay when it aborts (its runner shuts down): the call in flight is given up and
   * neither reported nor kept, no further call starts, and the replay rejects with the signal's
   * reason (when it is an error).
   */
  signal?: AbortSignal;
}

/** SWE-agent's submission sentinel (`ToolHandler.check_for_submission_cmd`). */
export const SWE_SUBMISSION_SENTINEL = '<<SWE_AGENT_SUBMISSION>>';

interface Invocation {
  ok: boolean;
  observation: string;
  output: unknown;
}

async function invoke(
  tools: ReadonlyMap<string, CaravelTool>,
  action: RecordedAction,
): Promise<Invocation> {
  const tool = tools.get(action.name);
  if (tool === undefined) {
    const error = new AppError('NOT_FOUND', `no tool named '${action.name}' to replay`);
    return { ok: false, observation: errorObservation(error), output: undefined };
  }
  try {
    const result = await tool.invoke(action.args);
    return result.ok
      ? { ok: true, observation: result.observation, output: result.output }
      : { ok: false, observation: result.observation, output: undefined };
  } catch (error) {
    // The run's middleware would have decided; a replay records it and goes on.
    return { ok: false, observation: errorObservation(toAppError(error)), output: undefined };
  }
}

function verdictOf(action: RecordedAction, observation: string): ReplayVerdict {
  if (action.recorded === null) return 'unrecorded';
  return action.recorded === observation ? 'same' : 'differs';
}

/**
 * mini-swe-agent's submission: a successful command whose output starts with a marker line
 * (leading whitespace ignored); the rest of the output is the submission.
 */
function markedSubmission(action: RecordedAction, done: Invocation): string | null {
  if (action.submitMarkers === undefined || !done.ok) return null;
  if ((done.output as { exitCode?: unknown } | undefined)?.exitCode !== 0) return null;
  const [first, ...rest] = done.observation.trimStart().split('\n');
  return action.submitMarkers.includes((first ?? '').trim()) ? rest.join('\n') : null;
}

/**
 * SWE-agent's submission: the sentinel anywhere in the output; the patch is read from its file,
 * and the step's observation becomes the patch, as SWE-agent records it.
 */
async function sentinelSubmission(
  action: RecordedAction,
  done: Invocation,
  options: ReplayOptions,
): Promise<Invocation | null> {
  if (action.sweSubmission !== true || options.readSubmission === undefined) return null;
  if (!done.ok || !done.observation.includes(SWE_SUBMISSION_SENTINEL)) return null;
  const patch = await options.readSubmission();
  const submission = patch === null || patch.trim() === '' ? null : patch;
  return { ok: true, observation: patch ?? '', output: { submission } };
}

function submissionOf(output: unknown): string | null {
  const submission = (output as { submission?: unknown } | undefined)?.submission;
  return typeof submission === 'string' ? submission : null;
}

/**
 * Executes recorded tool calls again, in order, with real tools bound to a sandbox (so each call
 * means what it meant in the run), and compares each observation with the recorded one. A
 * successful `submit` ends the replay, as it ended the run; its submission is the final patch
 * (so does a mini-swe-agent command whose output starts with its marker: the rest is the patch).
 * Without one, the final patch is the sandbox's diff at the end (null when blank).
 */
export async function replayActions(
  actions: readonly RecordedAction[],
  tools: readonly CaravelTool[],
  sandbox: ToolSandbox,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const outcomes: ReplayStepOutcome[] = [];
  let stoppedEarly = false;
  const { signal } = options;
  const stopped = () => stopOf(signal);
  for (const action of actions) {
    if (signal?.aborted) throw stopped();
    // A subagent's answer: its calls replayed before it; there is no model to answer again.
    const invoked =
      action.answer === undefined
        ? await untilAborted(invoke(byName, action), signal, stopped)
        : { ok: true, observation: action.answer, output: undefined };
    const sentinel = await sentinelSubmission(action, invoked, options);
    const done = sentinel ?? invoked;
    const state = options.stateAfter ? { state: await options.stateAfter() } : {};
    // A call that ended as its runner stopped is not reported: the next replay makes it again.
    if (signal?.aborted) throw stopped();
    const outcome = {
      action,
      ok: done.ok,
      observation: done.observation,
      verdict: verdictOf(action, done.observation),
      ...state,
    };
    outcomes.push(outcome);
    options.onStep?.(outcome);
    const marked = markedSubmission(action, done);
    if ((action.name === 'submit' && done.ok) || marked !== null || sentinel !== null) {
      const mismatches = outcomes.filter((o) => o.verdict === 'differs');
      return {
        outcomes,
        patch: marked ?? submissionOf(done.output),
        submitted: true,
        mismatches,
        stoppedEarly,
      };
    }
    if (outcome.verdict === 'differs' && options.stopOnMismatch === true) {
      stoppedEarly = true;
      break;
    }
  }
  const diff = await sandbox.diff();
  const mismatches = outcomes.filter((o) => o.verdict === 'differs');
  return {
    outcomes,
    patch: diff.trim() === '' ? null : diff,
    submitted: false,
    mismatches,
    stoppedEarly,
  };
}

/** What a stopped replay rejects with: its signal's reason when that is an error. */
function stopOf(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  return new AppError('DEPENDENCY_UNAVAILABLE', 'the replay was stopped before its end', {
    retryable: true,
  });
}
