import { AppError, type ErrorCode } from '@caravel/errors';
import type { ExitReason } from './exit-status.js';
import { LoopExitError } from './loop-exit.error.js';

/** Per-run limits. `0` disables a limit. */
export interface RunLimits {
  /** Model calls per run (SWE-agent's `per_instance_call_limit`). */
  maxModelCalls: number;
  /** Dollars per run (SWE-agent's `per_instance_cost_limit`, default $3). */
  maxCostUsd: number;
  /** Wall-clock milliseconds since the guard was created. */
  maxWallTimeMs: number;
  /** Prompt tokens per call (the model's context window). */
  maxInputTokens: number;
}

/** SWE-agent's defaults: $3 per run, nothing else limited. */
export const DEFAULT_RUN_LIMITS: RunLimits = {
  maxModelCalls: 0,
  maxCostUsd: 3,
  maxWallTimeMs: 0,
  maxInputTokens: 0,
};

/** What a call is about to cost, known before it is made. */
export interface ModelCallEstimate {
  /** Tokens in the prompt about to be sent. */
  inputTokens: number;
  /** The most the call can cost (prompt + maximum completion at the model's prices). */
  costUsd: number;
}

/** What a completed call cost. */
export interface ModelCallUsage {
  costUsd: number;
  tokensSent: number;
  tokensReceived: number;
}

/** Running totals for a run; the `.traj` `model_stats`. */
export interface ModelStats {
  instanceCost: number;
  tokensSent: number;
  tokensReceived: number;
  apiCalls: number;
}

/** May the paid call go ahead, and if not, how the run ends. */
export type LimitVerdict = { ok: true } | { ok: false; reason: ExitReason; message: string };

/** Reads the time; injected so tests control it. */
export interface WallClock {
  nowMs(): number;
}

function assertNonNegative(name: string, value: number, code: ErrorCode = 'BAD_REQUEST'): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new AppError(code, `${name} must be a non-negative number, got ${value}`);
  }
}

/**
 * Enforces a run's limits **before** each paid model call, so the call that would cross a
 * limit is never made (SWE-agent checks after the call and throws the paid answer away).
 * Budget and call limits end the run with `exit_cost`, the wall-clock limit with
 * `exit_total_execution_time`, an over-long prompt with `exit_context`. Limits are inclusive:
 * spending exactly the budget is allowed.
 */
export class LimitGuard {
  private readonly limits: RunLimits;
  private readonly startedAtMs: number;
  private totals: ModelStats = { instanceCost: 0, tokensSent: 0, tokensReceived: 0, apiCalls: 0 };

  constructor(
    limits: Partial<RunLimits>,
    private readonly clock: WallClock,
  ) {
    this.limits = { ...DEFAULT_RUN_LIMITS, ...limits };
    for (const [name, value] of Object.entries(this.limits) as [string, number][]) {
      assertNonNegative(name, value, 'CONFIG_INVALID');
    }
    this.startedAtMs = clock.nowMs();
  }

  /** Whether a call with this estimate may be made now. Does not record anything. */
  beforeModelCall(estimate: ModelCallEstimate): LimitVerdict {
    assertNonNegative('inputTokens', estimate.inputTokens);
    assertNonNegative('costUsd', estimate.costUsd);
    const { maxModelCalls, maxCostUsd, maxWallTimeMs, maxInputTokens } = this.limits;
    const elapsed = this.clock.nowMs() - this.startedAtMs;
    if (maxWallTimeMs > 0 && elapsed >= maxWallTimeMs) {
      return refuse(
        'exit_total_execution_time',
        `Run time ${elapsed} ms reached the limit of ${maxWallTimeMs} ms`,
      );
    }
    if (maxModelCalls > 0 && this.totals.apiCalls + 1 > maxModelCalls) {
      return refuse('exit_cost', `Model call limit of ${maxModelCalls} calls reached`);
    }
    const projected = this.totals.instanceCost + estimate.costUsd;
    if (maxCostUsd > 0 && projected > maxCostUsd) {
      return refuse(
        'exit_cost',
        `Next call could bring the cost to $${projected.toFixed(4)}, over the $${maxCostUsd} budget`,
      );
    }
    if (maxInputTokens > 0 && estimate.inputTokens > maxInputTokens) {
      return refuse(
        'exit_context',
        `Prompt of ${estimate.inputTokens} tokens exceeds the ${maxInputTokens}-token context window`,
      );
    }
    return { ok: true };
  }

  /** Records a completed call. */
  afterModelCall(usage: ModelCallUsage): void {
    assertNonNegative('costUsd', usage.costUsd);
    this.totals = {
      instanceCost: this.totals.instanceCost + usage.costUsd,
      tokensSent: this.totals.tokensSent + usage.tokensSent,
      tokensReceived: this.totals.tokensReceived + usage.tokensReceived,
      apiCalls: this.totals.apiCalls + 1,
    };
  }

  /**
   * Records money spent on the run's behalf without a call of its own (a subagent's calls): it
   * counts against the budget, not as an API call.
   */
  addSpend(usage: ModelCallUsage): void {
    assertNonNegative('costUsd', usage.costUsd);
    this.totals = {
      ...this.totals,
      instanceCost: this.totals.instanceCost + usage.costUsd,
      tokensSent: this.totals.tokensSent + usage.tokensSent,
      tokensReceived: this.totals.tokensReceived + usage.tokensReceived,
    };
  }

  /**
   * Makes a paid call only if the guard allows it, and records its usage.
   * @throws LoopExitError with the exit reason, before `paid` is invoked, when a limit refuses.
   */
  async call<T>(
    estimate: ModelCallEstimate,
    paid: () => Promise<{ value: T; usage: ModelCallUsage }>,
  ): Promise<T> {
    const verdict = this.beforeModelCall(estimate);
    if (!verdict.ok) throw new LoopExitError(verdict.reason, verdict.message, { estimate });
    const { value, usage } = await paid();
    this.afterModelCall(usage);
    return value;
  }

  /** The totals so far. */
  stats(): ModelStats {
    return { ...this.totals };
  }
}

function refuse(reason: ExitReason, message: string): LimitVerdict {
  return { ok: false, reason, message };
}
