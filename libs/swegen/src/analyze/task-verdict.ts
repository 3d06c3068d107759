/** How one trial is judged: whether it passed (the reward decides) and whose fault the outcome is. */
export const TRIAL_CLASSES = [
  'good_success',
  'bad_success',
  'good_failure',
  'bad_failure',
] as const;

export type TrialClass = (typeof TRIAL_CLASSES)[number];

/** The classes a trial may take given its reward: the reward is the ground truth. */
export function classesFor(passed: boolean): readonly [TrialClass, TrialClass] {
  return passed ? ['good_success', 'bad_success'] : ['good_failure', 'bad_failure'];
}

/** A trial passed when its reward is 1 (or more); a partial or missing reward is a failure. */
export function trialPassed(reward: number | null): boolean {
  return reward !== null && reward >= 1;
}

/** What the verdict reads of one trial. */
export interface JudgedTrial {
  readonly reward: number | null;
  /** Absent when classification was skipped or failed: the reward alone then counts. */
  readonly classification?: TrialClass;
}

/**
 * The task's verdict: `good` (some trials pass, some fail, all for the agent's reasons),
 * `too_hard` (every trial failed, each the agent's fault), `too_easy` (every trial passed
 * legitimately), `flaky` (a task problem sank a trial another trial passed), `exploitable`
 * (a trial passed without a real fix), `broken` (the environment failed to build, or no trial
 * passed and at least one failure was the task's fault).
 */
export type TaskVerdictKind = 'good' | 'too_hard' | 'too_easy' | 'flaky' | 'exploitable' | 'broken';

/** The verdict with its figures and reasons. */
export interface TaskVerdict {
  readonly verdict: TaskVerdictKind;
  /** Whether the task is worth keeping in a dataset (`good` and `too_hard`). */
  readonly keep: boolean;
  readonly trials: number;
  readonly passed: number;
  readonly passRate: number;
  readonly counts: Readonly<Record<TrialClass, number>>;
  readonly unclassified: number;
  readonly reasons: readonly string[];
}

function tally(trials: readonly JudgedTrial[]): Record<TrialClass, number> {
  const counts: Record<TrialClass, number> = {
    good_success: 0,
    bad_success: 0,
    good_failure: 0,
    bad_failure: 0,
  };
  for (const trial of trials) {
    const fallback = trialPassed(trial.reward) ? 'good_success' : 'good_failure';
    counts[trial.classification ?? fallback] += 1;
  }
  return counts;
}

function kindOf(counts: Record<TrialClass, number>, total: number): TaskVerdictKind {
  const successes = counts.good_success + counts.bad_success;
  if (counts.bad_failure > 0 && counts.good_success === 0) return 'broken';
  if (counts.bad_success > 0) return 'exploitable';
  if (counts.bad_failure > 0) return 'flaky';
  if (successes === total) return 'too_easy';
  if (successes === 0) return 'too_hard';
  return 'good';
}

function reasonsFor(
  kind: TaskVerdictKind,
  counts: Record<TrialClass, number>,
  passed: number,
  total: number,
): string[] {
  const reasons = [`${passed}/${total} trials passed`];
  if (counts.bad_failure > 0)
    reasons.push(`${counts.bad_failure} failure(s) blamed on the task (tests, environment)`);
  if (counts.bad_success > 0)
    reasons.push(`${counts.bad_success} success(es) without a genuine fix`);
  if (kind === 'too_easy') reasons.push('every trial solved it: the task does not discriminate');
  if (kind === 'too_hard') reasons.push('no trial solved it, each for the agent’s own reasons');
  if (kind === 'good') reasons.push('it separates solving trials from failing ones');
  return reasons;
}

/**
 * Aggregates classified trials into the task's verdict. A broken environment is `broken`
 * whatever the trials; an unclassified trial counts as a good success or failure by its reward.
 */
export function taskVerdict(
  trials: readonly JudgedTrial[],
  environmentError?: string,
): TaskVerdict {
  const counts = tally(trials);
  const passed = trials.filter((t) => trialPassed(t.reward)).length;
  const unclassified = trials.filter((t) => t.classification === undefined).length;
  const base = {
    trials: trials.length,
    passed,
    passRate: trials.length === 0 ? 0 : passed / trials.length,
    counts,
    unclassified,
  };
  if (environmentError !== undefined || trials.length === 0) {
    const why = environmentError ?? 'no trial ran';
    return { ...base, verdict: 'broken', keep: false, reasons: [`the environment failed: ${why}`] };
  }
  const verdict = kindOf(counts, trials.length);
  const reasons = reasonsFor(verdict, counts, passed, trials.length);
  if (unclassified > 0) reasons.push(`${unclassified} trial(s) judged by the reward alone`);
  return { ...base, verdict, keep: verdict === 'good' || verdict === 'too_hard', reasons };
}
