import type { Selection } from '@caravel/agent';
import type { RepositoryRef } from '@caravel/contracts';
import type { RunBudgetLimit } from '../agent/budget-of-run.js';

const usd = (amount: number): string => `$${amount.toFixed(2)}`;

/** Whose limit a run's budget is, in words: the team's, a repository's, a person's, ... */
export function budgetLimitName(
  limit: RunBudgetLimit,
  run: { repository?: RepositoryRef | undefined; requestedBy?: string | undefined },
): string {
  switch (limit.from) {
    case 'team':
      return "the team's limit";
    case 'repository':
      return `the limit for ${run.repository?.owner ?? '?'}/${run.repository?.name ?? '?'}`;
    case 'person':
      return `the limit for ${run.requestedBy ?? 'its requester'}`;
    case 'environment':
      return 'RUN_BUDGET_USD';
    case 'grant':
      return 'what was left of the paused run plus the grant';
    case 'none':
      return 'no limit';
  }
}

/**
 * What a retry-and-select run says when its budget stopped its attempts: one ran into it
 * (`exit_cost`), or none was left for the next. Attempts do not pause (each has a conversation of
 * its own, so there is no one checkpoint to continue): the run stops trying and selects among the
 * attempts it has. Null when the budget stopped nothing.
 */
export function attemptsBudgetStop(
  limit: RunBudgetLimit,
  name: string,
  selection: Pick<Selection<string>, 'attempts'>,
  asked: number,
): string | null {
  const { attempts } = selection;
  const ranInto = attempts.some((attempt) => attempt.exitStatus.includes('exit_cost'));
  if (limit.usd <= 0 || (!ranInto && attempts.length >= asked)) return null;
  const spent = attempts.reduce((sum, attempt) => sum + attempt.stats.instanceCost, 0);
  return (
    `Stopped at this run's ${usd(limit.usd)} budget (${name}): ${attempts.length} of ${asked} ` +
    `attempts ran and spent ${usd(spent)}; the best of them was kept.`
  );
}
