import type { Selectable } from 'kysely';
import type { BudgetLimit } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';
import type { BudgetScope } from './states.js';

/** A dollar budget per run for the team, a repository or a person (`budget_limits`). */
export type BudgetLimitRow = RowOf<BudgetLimit>;

/** The subject of the team's own limit. */
export const TEAM_BUDGET_SUBJECT = 'team';

/** The limits that may apply to one run; null where its scope sets none. */
export interface ApplicableBudgets {
  team: number | null;
  repository: number | null;
  person: number | null;
}

const toRow: (row: Selectable<BudgetLimit>) => BudgetLimitRow = rowOf<BudgetLimit>;

/** A repository's subject: `owner/name`, lower-cased (GitHub names ignore case). */
export function repositoryBudgetSubject(owner: string, name: string): string {
  return `${owner}/${name}`.toLowerCase();
}

/** Budget limits by scope and subject: a save replaces one, a removal lifts it. */
export class BudgetLimitRepository {
  constructor(private readonly db: Executor) {}

  async save(
    limit: { scope: BudgetScope; subject: string; budgetUsd: number; updatedBy: string; at?: Date },
    executor: Executor = this.db,
  ): Promise<BudgetLimitRow> {
    const values = {
      scope: limit.scope,
      subject: limit.subject,
      budget_usd: limit.budgetUsd,
      updated_by: limit.updatedBy,
      updated_at: timeOr(limit.at),
    };
    const row = await executor
      .insertInto('budget_limits')
      .values(values)
      .onConflict((conflict) => conflict.columns(['scope', 'subject']).doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  /** Every saved limit: the team's, then repositories' and people's, by subject. */
  async list(executor: Executor = this.db): Promise<BudgetLimitRow[]> {
    const rows = await executor
      .selectFrom('budget_limits')
      .selectAll()
      .orderBy('scope', 'desc')
      .orderBy('subject')
      .execute();
    return rows.map(toRow);
  }

  /** False when there was no such limit. */
  async remove(
    scope: BudgetScope,
    subject: string,
    executor: Executor = this.db,
  ): Promise<boolean> {
    const result = await executor
      .deleteFrom('budget_limits')
      .where('scope', '=', scope)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** The team's limit, the repository's (`owner/name`) and the person's (`source:id`). */
  async applicable(
    run: { repository: string | null; person: string | null },
    executor: Executor = this.db,
  ): Promise<ApplicableBudgets> {
    const wanted: [BudgetScope, string][] = [['team', TEAM_BUDGET_SUBJECT]];
    if (run.repository) wanted.push(['repository', run.repository.toLowerCase()]);
    if (run.person) wanted.push(['person', run.person]);
    const rows = await executor
      .selectFrom('budget_limits')
      .selectAll()
      .where((eb) =>
        eb.or(
          wanted.map(([scope, subject]) =>
            eb.and([eb('scope', '=', scope), eb('subject', '=', subject)]),
          ),
        ),
      )
      .execute();
    const of = (scope: BudgetScope) => rows.find((row) => row.scope === scope)?.budget_usd ?? null;
    return { team: of('team'), repository: of('repository'), person: of('person') };
  }
}
