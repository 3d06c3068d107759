import { autosubmitsOn, submittedAfter, type ExitReason, type ExitStatus } from './exit-status.js';

/** Reads the current diff of the work (e.g. `git add -A && git diff --cached` in the sandbox). */
export type DiffSource = () => Promise<string>;

/** How a run ended: its status, what it submitted, and the final step's observation. */
export interface RunConclusion {
  exitStatus: ExitStatus;
  /** The patch, or `null` when nothing (or only whitespace) was submitted. */
  submission: string | null;
  observation: string;
}

/** Options for {@link concludeRun}. */
export interface ConcludeRunOptions {
  /**
   * The last diff recorded in the trajectory state, used when the diff source itself fails
   * (a dead sandbox): the run still submits what it knew about.
   */
  lastKnownDiff?: string | null;
}

/** Observations of the concluding step; shared so viewers and tests agree on them. */
export const CONCLUSION_OBSERVATIONS = {
  exited: 'Exited',
  autosubmitted: 'Exited (autosubmitted)',
  environmentDied: 'Environment died unexpectedly. Exited (autosubmitted)',
} as const;

function nonEmpty(diff: string | null | undefined): string | null {
  return typeof diff === 'string' && diff.trim() !== '' ? diff : null;
}

/**
 * The conclusion of a run that submitted on its own: the sentinel was seen and `patch` is the
 * submitted diff. The observation is the patch text, as in SWE-agent.
 */
export function concludeSubmitted(patch: string): RunConclusion {
  return { exitStatus: 'submitted', submission: nonEmpty(patch), observation: patch };
}

/**
 * The conclusion of a run that ended with `reason`. Every error path attempts to submit the
 * current diff: a non-empty diff gives `submitted (<reason>)` with the diff as submission,
 * an empty one the bare reason and no submission. When the diff source throws, the last
 * known diff is used instead. `exit_command` (the model's own `exit`) does not autosubmit.
 */
export async function concludeRun(
  reason: ExitReason,
  readDiff: DiffSource,
  options: ConcludeRunOptions = {},
): Promise<RunConclusion> {
  const bare: RunConclusion = {
    exitStatus: reason,
    submission: null,
    observation: CONCLUSION_OBSERVATIONS.exited,
  };
  if (!autosubmitsOn(reason)) return bare;
  let diff: string | null;
  let observation: string = CONCLUSION_OBSERVATIONS.autosubmitted;
  try {
    diff = nonEmpty(await readDiff());
  } catch {
    // The environment is gone; what the last state recorded is the best evidence left.
    diff = nonEmpty(options.lastKnownDiff);
    observation = CONCLUSION_OBSERVATIONS.environmentDied;
  }
  if (diff === null) return bare;
  return { exitStatus: submittedAfter(reason), submission: diff, observation };
}
