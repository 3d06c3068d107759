import {
  BudgetLimitRepository,
  BudgetPauseRepository,
  repositoryBudgetSubject,
  TEAM_BUDGET_SUBJECT,
  ThreadPlanRepository,
  type AwaitingBudgetPause,
  type BudgetLimitRow,
  type BudgetScope,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import { DASHBOARD_CONFIG, type DashboardConfig } from '../dashboard.config.js';
import type { Caller } from '../auth/session.types.js';
import { actorOf } from './enabled-repositories.service.js';

/** A run paused at its budget that a grant would still continue, and who may grant it. */
export type BudgetPauseView = Omit<
  AwaitingBudgetPause,
  'standing' | 'supersededBy' | 'resumedBy'
> & { mayGrant: string[] };

const REPOSITORY = /^([A-Za-z0-9_.-]{1,100})\/([A-Za-z0-9_.-]{1,100})$/;
const PERSON = /^[a-z]+:\S{1,128}$/;

/**
 * The subject a limit of `scope` is saved under: none (or `team`) for the team, `owner/name`
 * (lower-cased) for a repository, `source:id` for a person; BAD_REQUEST otherwise.
 */
export function budgetSubjectOf(scope: BudgetScope, subject: string | undefined): string {
  switch (scope) {
    case 'team':
      if (subject === undefined || subject === TEAM_BUDGET_SUBJECT) return TEAM_BUDGET_SUBJECT;
      throw new AppError('BAD_REQUEST', `the team's budget takes no subject (got "${subject}")`);
    case 'repository': {
      const [, owner, name] = REPOSITORY.exec(subject ?? '') ?? [];
      if (owner && name) return repositoryBudgetSubject(owner, name);
      throw new AppError('BAD_REQUEST', 'a repository budget needs subject owner/name');
    }
    case 'person':
      if (subject !== undefined && PERSON.test(subject)) return subject;
      throw new AppError(
        'BAD_REQUEST',
        'a person budget needs subject source:id, e.g. github:octocat or slack:U0123ABCD',
      );
  }
}

/**
 * Budget limits per run (team, repository, person; the runner applies the tightest) and the runs
 * paused at theirs. Everyone reads; the routes that change limits are admin-only.
 */
@Injectable()
export class BudgetsService {
  constructor(
    @Inject(BudgetLimitRepository) private readonly limits: BudgetLimitRepository,
    @Inject(BudgetPauseRepository) private readonly pauses: BudgetPauseRepository,
    @Inject(ThreadPlanRepository) private readonly owners: ThreadPlanRepository,
    @Inject(DASHBOARD_CONFIG) private readonly config: DashboardConfig,
  ) {}

  list(): Promise<BudgetLimitRow[]> {
    return this.limits.list();
  }

  async save(
    caller: Caller,
    scope: BudgetScope,
    limit: { subject?: string | undefined; budgetUsd: number },
  ): Promise<BudgetLimitRow> {
    const subject = budgetSubjectOf(scope, limit.subject);
    return this.limits.save({
      scope,
      subject,
      budgetUsd: limit.budgetUsd,
      updatedBy: actorOf(caller),
    });
  }

  async remove(scope: BudgetScope, subject: string | undefined): Promise<void> {
    const saved = budgetSubjectOf(scope, subject);
    if (!(await this.limits.remove(scope, saved))) {
      throw new AppError('NOT_FOUND', `no ${scope} budget for ${saved}`);
    }
  }

  /** Pauses a grant would still continue (their run ended paused, nothing ran since). */
  async pausesOpen(): Promise<BudgetPauseView[]> {
    const awaiting = await this.pauses.listAwaiting({ limit: 200 });
    const open = awaiting.filter((pause) => pause.standing === 'open');
    return Promise.all(
      open.map(async ({ standing: _s, supersededBy: _b, resumedBy: _r, ...pause }) => {
        const owner = await this.owners.ownerOf(pause.threadId);
        const admins = this.config.budgets.admins.filter((admin) => admin !== owner);
        return { ...pause, mayGrant: owner ? [owner, ...admins] : [...admins] };
      }),
    );
  }
}
