import { AppError } from '@caravel/errors';
import type { ExitReason } from './exit-status.js';

/** Whether the run is repeating itself. */
export type StuckVerdict =
  | { stuck: false; repeats: number }
  | { stuck: true; repeats: number; reason: ExitReason; message: string };

/** OpenHands stops at 4 identical action/observation pairs; so do we by default. */
export const DEFAULT_STUCK_THRESHOLD = 4;

/**
 * Detects a run that repeats the same action and gets the same observation `threshold` times
 * in a row. The outcome is defined: the run ends with `exit_stuck`, which autosubmits like any
 * other error path. A different action or a different observation resets the count.
 */
export class StuckDetector {
  private last: { action: string; observation: string } | null = null;
  private repeats = 0;

  constructor(private readonly threshold: number = DEFAULT_STUCK_THRESHOLD) {
    if (!Number.isInteger(threshold) || threshold < 2) {
      throw new AppError(
        'CONFIG_INVALID',
        `Stuck threshold must be an integer of at least 2, got ${threshold}`,
      );
    }
  }

  /** Records one executed step and says whether the run is stuck. */
  record(action: string, observation: string): StuckVerdict {
    const same =
      this.last !== null && this.last.action === action && this.last.observation === observation;
    this.repeats = same ? this.repeats + 1 : 1;
    this.last = { action, observation };
    if (this.repeats < this.threshold) return { stuck: false, repeats: this.repeats };
    return {
      stuck: true,
      repeats: this.repeats,
      reason: 'exit_stuck',
      message: `The same action and observation repeated ${this.repeats} times in a row`,
    };
  }
}
