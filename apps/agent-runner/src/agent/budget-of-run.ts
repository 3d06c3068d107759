import type { RepositoryRef } from '@caravel/contracts';
import {
  BudgetLimitRepository,
  BudgetPauseRepository,
  type ApplicableBudgets,
  type BudgetPauseRow,
} from '@caravel/db';
import type { BudgetPause, BudgetPausePort } from '@caravel/middleware';
import type { ReplyChannel } from '@caravel/tools';
import { Inject, Injectable } from '@nestjs/common';
import { AGENT_RUNNER_CONFIG, type AgentRunnerConfig } from '../agent-runner.config.js';

/**
 * A run's dollar budget, the tightest of those that apply: the team's (its saved limit, else
 * `RUN_BUDGET_USD`), the repository's and the requester's. A scope with no limit sets none; `0`
 * for the team (`RUN_BUDGET_USD=0` with no saved limit) leaves the team unlimited, and a run
 * that no scope limits has no budget (`0`).
 */
export function effectiveBudgetUsd(envBudgetUsd: number, limits: ApplicableBudgets): number {
  return tightestBudget(envBudgetUsd, limits).usd;
}

/** Where a run's budget comes from: a saved limit, `RUN_BUDGET_USD`, a grant, or nothing. */
export type BudgetSource = 'team' | 'repository' | 'person' | 'environment' | 'grant' | 'none';

/** A run's budget and the limit it is. */
export interface RunBudgetLimit {
  usd: number;
  from: BudgetSource;
}

/** The tightest budget of those that apply ({@link effectiveBudgetUsd}), and whose it is. */
export function tightestBudget(envBudgetUsd: number, limits: ApplicableBudgets): RunBudgetLimit {
  const candidates: RunBudgetLimit[] = [
    limits.team === null
      ? { usd: envBudgetUsd, from: 'environment' }
      : { usd: limits.team, from: 'team' },
    { usd: limits.repository ?? 0, from: 'repository' },
    { usd: limits.person ?? 0, from: 'person' },
  ];
  return candidates
    .filter((limit) => limit.usd > 0)
    .reduce<RunBudgetLimit>(
      (tightest, limit) =>
        tightest.from === 'none' || limit.usd < tightest.usd ? limit : tightest,
      { usd: 0, from: 'none' },
    );
}

/** The budget of the run that continues a paused one: what was left of it plus the grant. */
export function continuationBudgetUsd(
  pause: Pick<BudgetPauseRow, 'budgetUsd' | 'spentUsd' | 'grantedUsd'>,
): number {
  return (pause.grantedUsd ?? 0) + Math.max(0, pause.budgetUsd - pause.spentUsd);
}

const usd = (amount: number): string => `$${amount.toFixed(2)}`;

/** What the source channel is told when a run pauses at its budget. */
export function budgetPauseText(pause: BudgetPause): string {
  return [
    `I've paused: this run has spent ${usd(pause.spentUsd)} of its ${usd(pause.budgetUsd)} budget, ` +
      `and its next step could cost about ${usd(pause.nextCallUsd)}.`,
    'To continue where I stopped, reply here with how much more I may spend, e.g. ' +
      '"continue with $5 more" (the person who started this thread or an admin).',
  ].join('\n');
}

/** What a run's budget depends on. */
export interface BudgetedRun {
  threadId: string;
  runId: string;
  /** `source:id` of who asked. */
  requestedBy?: string | undefined;
  workspace: { repository?: RepositoryRef | undefined };
  channel: ReplyChannel;
}

/**
 * Each run's dollar budget (team, repository and person limits; a paused run's continuation
 * gets the grant) and where it pauses: the pause is recorded, then the source channel asked.
 */
@Injectable()
export class RunBudgets {
  constructor(
    @Inject(AGENT_RUNNER_CONFIG) private readonly config: AgentRunnerConfig,
    @Inject(BudgetLimitRepository) private readonly limits: BudgetLimitRepository,
    @Inject(BudgetPauseRepository) private readonly pauses: BudgetPauseRepository,
  ) {}

  /**
   * The run's budget: the grant's when it continues a paused run of its thread (taken once),
   * else the tightest limit that applies.
   */
  async budgetOf(run: BudgetedRun): Promise<number> {
    return (await this.limitOf(run)).usd;
  }

  /** {@link budgetOf}, with whose limit it is. */
  async limitOf(run: Omit<BudgetedRun, 'channel'>): Promise<RunBudgetLimit> {
    const granted = await this.pauses.takeGrant(run.threadId, run.runId);
    if (granted) return { usd: continuationBudgetUsd(granted), from: 'grant' };
    const repository = run.workspace.repository;
    const limits = await this.limits.applicable({
      repository: repository ? `${repository.owner}/${repository.name}` : null,
      person: run.requestedBy ?? null,
    });
    return tightestBudget(this.config.run.budgetUsd, limits);
  }

  /** Records the run's pause and asks its source channel for more. */
  pauseOf(run: BudgetedRun): BudgetPausePort {
    return {
      pause: async (pause) => {
        const { threadId, runId } = run;
        const { spentUsd, budgetUsd } = pause;
        await this.pauses.record({ threadId, runId, spentUsd, budgetUsd });
        await run.channel.reply(budgetPauseText(pause));
      },
    };
  }
}

/**
 * The budget and pause of a single run (an attempt of a retry-and-select run spends its share
 * of its run's and ends at it); none without {@link RunBudgets} (`RUN_BUDGET_USD` then ends it).
 */
export async function budgetOfRun(
  budgets: RunBudgets | undefined,
  run: BudgetedRun,
): Promise<{ budgetUsd?: number; budgetPause?: BudgetPausePort }> {
  if (!budgets) return {};
  return { budgetUsd: await budgets.budgetOf(run), budgetPause: budgets.pauseOf(run) };
}
