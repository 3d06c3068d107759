import type { Flip, RunComparison, RunSide } from './compare-runs.js';

/** When a configuration change is refused. */
export interface GatePolicy {
  /** The largest drop in resolve rate tolerated (0.05: five points). */
  maxDrop: number;
  /** The one-sided significance a drop beyond `maxDrop` needs before it refuses (0.05). */
  alpha: number;
}

export const DEFAULT_GATE_POLICY: GatePolicy = { maxDrop: 0.05, alpha: 0.05 };

export interface GateVerdict {
  verdict: 'accept' | 'refuse';
  reason: string;
  delta: number;
  pValue: number;
}

const points = (rate: number) => `${(rate * 100).toFixed(1)} points`;

/**
 * Accepts or refuses a candidate configuration against the baseline's last run. It refuses only
 * a drop beyond the policy's tolerance that the paired test finds significant — noise on a small
 * suite must not block a change — and always when the runs share no task (nothing was measured).
 */
export function gateVerdict(comparison: RunComparison, policy: GatePolicy): GateVerdict {
  const { delta } = comparison;
  // One-sided: the gate asks only whether the candidate is worse.
  const { pWorse: pValue, better, worse } = comparison.test;
  if (comparison.tasks.length === 0) {
    return {
      verdict: 'refuse',
      reason: 'the runs share no task: nothing was compared',
      delta,
      pValue,
    };
  }
  const flips = `${worse} task(s) lost, ${better} gained`;
  if (delta < -policy.maxDrop && pValue < policy.alpha) {
    return {
      verdict: 'refuse',
      reason: `resolve rate down ${points(-delta)} (more than ${points(policy.maxDrop)}), ${flips}, p = ${pValue.toPrecision(2)} < ${policy.alpha}`,
      delta,
      pValue,
    };
  }
  const why =
    delta < -policy.maxDrop
      ? `down ${points(-delta)} but not significant (p = ${pValue.toPrecision(2)})`
      : `${delta < 0 ? 'down' : 'up'} ${points(Math.abs(delta))}`;
  return { verdict: 'accept', reason: `resolve rate ${why}, ${flips}`, delta, pValue };
}

/** The numbers a verdict is kept with: each side's resolve rate and interval, and the flips. */
export interface GateNumbers {
  baseline: GateSide;
  candidate: GateSide;
  /** Tasks both runs attempted. */
  tasks: number;
  lost: string[];
  gained: string[];
}

export interface GateSide {
  runId: string;
  config: string;
  model: string;
  resolved: number;
  attempts: number;
  rate: number;
  low: number;
  high: number;
}

/** What the gate's verdict rests on, to keep beside it. */
export function gateNumbers(comparison: RunComparison): GateNumbers {
  const side = ({ runId, config, model, resolve }: RunSide): GateSide => ({
    runId,
    config,
    model,
    resolved: resolve.successes,
    attempts: resolve.trials,
    rate: resolve.rate,
    low: resolve.low,
    high: resolve.high,
  });
  const flipped = (flip: Flip) =>
    comparison.tasks.filter((t) => t.flip === flip).map((t) => t.taskId);
  return {
    baseline: side(comparison.baseline),
    candidate: side(comparison.candidate),
    tasks: comparison.tasks.length,
    lost: flipped('lost'),
    gained: flipped('gained'),
  };
}
