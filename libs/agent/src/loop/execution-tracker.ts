import { AppError } from '@caravel/errors';
import type { LimitVerdict } from './limit-guard.js';

/** Limits on the commands a run executes. `0` disables a limit. */
export interface ExecutionLimits {
  /** Seconds of command execution per run; model latency does not count (SWE-agent: 1800). */
  maxTotalExecutionSeconds: number;
  /** Timeouts in a row that end the run (SWE-agent: 3). */
  maxConsecutiveTimeouts: number;
}

/** SWE-agent's defaults. */
export const DEFAULT_EXECUTION_LIMITS: ExecutionLimits = {
  maxTotalExecutionSeconds: 1800,
  maxConsecutiveTimeouts: 3,
};

/** One executed command. */
export interface ExecutedCommand {
  seconds: number;
  timedOut: boolean;
}

/**
 * Tracks command execution time and consecutive timeouts. `beforeStep` ends a run whose
 * commands have used more than the total (`exit_total_execution_time`); `recordCommand` ends
 * one whose commands timed out too many times in a row (`exit_command_timeout`). A command
 * that finishes in time resets the timeout streak.
 */
export class ExecutionTracker {
  private readonly limits: ExecutionLimits;
  private totalSeconds = 0;
  private timeoutStreak = 0;

  constructor(limits: Partial<ExecutionLimits> = {}) {
    this.limits = { ...DEFAULT_EXECUTION_LIMITS, ...limits };
    for (const [name, value] of Object.entries(this.limits) as [string, number][]) {
      if (!Number.isFinite(value) || value < 0) {
        throw new AppError('CONFIG_INVALID', `${name} must be a non-negative number, got ${value}`);
      }
    }
  }

  /** Checked at the start of every step, before the model is queried. */
  beforeStep(): LimitVerdict {
    const max = this.limits.maxTotalExecutionSeconds;
    if (max > 0 && this.totalSeconds > max) {
      return {
        ok: false,
        reason: 'exit_total_execution_time',
        message: `Commands ran for ${this.totalSeconds.toFixed(1)} s, over the ${max} s limit`,
      };
    }
    return { ok: true };
  }

  /** Records a command; refuses to continue after too many consecutive timeouts. */
  recordCommand(command: ExecutedCommand): LimitVerdict {
    this.totalSeconds += command.seconds;
    this.timeoutStreak = command.timedOut ? this.timeoutStreak + 1 : 0;
    const max = this.limits.maxConsecutiveTimeouts;
    if (max > 0 && this.timeoutStreak >= max) {
      return {
        ok: false,
        reason: 'exit_command_timeout',
        message: `${this.timeoutStreak} commands in a row timed out`,
      };
    }
    return { ok: true };
  }

  /** Seconds of command execution so far. */
  executionSeconds(): number {
    return this.totalSeconds;
  }
}
