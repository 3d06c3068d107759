import { concludeRun, concludeSubmitted, type RunConclusion } from '@caravel/agent';
import type { RunExitStatus } from '@caravel/middleware';
import { FORFEIT_TOOL_NAME } from '@caravel/tools';
import { exitReasonForError, exitReasonForMiddleware } from '../agent/exit-reasons.js';
import type { RunFinish } from './run-events.js';

/** What a stream needs to be concluded, whoever runs it (a run or one attempt of it). */
export interface StreamToConclude {
  /**
   * Does the run's work: whatever must come first (sandbox, agent) and then the stream itself;
   * resolves with the middleware's early exit, if there was one.
   */
  stream: () => Promise<{ middlewareExit: RunExitStatus | undefined }>;
  /** The run's recorder: the tools called so far, and the steps still to publish. */
  recorder: { readonly toolsCalled: readonly string[]; flush(): Promise<void> };
  /** The run's current diff; rejects when there is no sandbox to read it from. */
  diff: () => Promise<string>;
  /** Aborted when a new message interrupted the run. */
  signal: AbortSignal;
}

/** How an interrupted run ends: nothing submitted, its work goes on in the next run. */
export const INTERRUPTED: RunConclusion = {
  exitStatus: 'exit_interrupted',
  submission: null,
  observation: 'Interrupted: a new message arrived; the next run continues from here',
};

/** How a stream ended. */
export type StreamEnding =
  /** The stream ran out: submitted, a middleware's exit, or a forfeit, each with its diff. */
  | { kind: 'ended'; conclusion: RunFinish }
  /** An error ended it: its exit status, the current diff autosubmitted, the reason said. */
  | { kind: 'failed'; conclusion: RunConclusion; error: unknown }
  /** A new message interrupted it: nothing to conclude, the next run goes on from here. */
  | { kind: 'interrupted'; error: unknown };

/**
 * Runs a stream to its end and concludes it in SWE-agent's terms: `submit` gives `submitted`
 * with the diff; a middleware's early exit, the agent's forfeit and an error each give their exit
 * status with the current diff autosubmitted (`submitted (exit_cost)`); an interrupt concludes
 * nothing. Steps recorded before an error are published first.
 */
export async function concludeStream(run: StreamToConclude): Promise<StreamEnding> {
  try {
    const { middlewareExit } = await run.stream();
    if (middlewareExit) {
      return {
        kind: 'ended',
        conclusion: await concludeRun(exitReasonForMiddleware(middlewareExit), run.diff),
      };
    }
    // The agent gave up (SWE-agent's exit_forfeit); whatever it changed is still autosubmitted.
    if (run.recorder.toolsCalled.at(-1) === FORFEIT_TOOL_NAME)
      return { kind: 'ended', conclusion: await concludeRun('exit_forfeit', run.diff) };
    return { kind: 'ended', conclusion: concludeSubmitted(await run.diff()) };
  } catch (error) {
    return concludeFailure(error, run);
  }
}

/**
 * Concludes work that an error ended: the steps recorded so far are published, an interrupt
 * concludes nothing, anything else gives its exit status with the current diff autosubmitted and
 * the error's message as the reason.
 */
export async function concludeFailure(
  error: unknown,
  run: Pick<StreamToConclude, 'diff' | 'signal'> & Partial<Pick<StreamToConclude, 'recorder'>>,
): Promise<StreamEnding> {
  await run.recorder?.flush().catch(() => undefined);
  if (run.signal.aborted) return { kind: 'interrupted', error };
  const conclusion = await concludeRun(exitReasonForError(error), run.diff);
  const reason = error instanceof Error ? error.message : String(error);
  return {
    kind: 'failed',
    conclusion: { ...conclusion, observation: `${conclusion.observation}: ${reason}` },
    error,
  };
}
