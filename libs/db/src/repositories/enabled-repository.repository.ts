import type { Selectable } from 'kysely';
import type { EnabledRepository } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** A repository enabled in the dashboard (`enabled_repositories`). */
export type EnabledRepositoryRow = RowOf<EnabledRepository>;

export interface EnabledRepositorySave {
  repository: string;
  agent: boolean;
  autoReview: boolean;
  ciAutofix: boolean;
  updatedBy: string;
  at?: Date;
}

const toRow: (row: Selectable<EnabledRepository>) => EnabledRepositoryRow =
  rowOf<EnabledRepository>;

/** The dashboard's enabled repositories: a save replaces the row, a removal deletes it. */
export class EnabledRepositoryRepository {
  constructor(private readonly db: Executor) {}

  /** Every enabled repository, by name. */
  async list(executor: Executor = this.db): Promise<EnabledRepositoryRow[]> {
    const rows = await executor
      .selectFrom('enabled_repositories')
      .selectAll()
      .orderBy('repository')
      .execute();
    return rows.map(toRow);
  }

  async save(
    save: EnabledRepositorySave,
    executor: Executor = this.db,
  ): Promise<EnabledRepositoryRow> {
    const values = {
      repository: save.repository,
      agent: save.agent,
      auto_review: save.autoReview,
      ci_autofix: save.ciAutofix,
      updated_by: save.updatedBy,
      updated_at: timeOr(save.at),
    };
    const row = await executor
      .insertInto('enabled_repositories')
      .values(values)
      .onConflict((conflict) => conflict.column('repository').doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  /** False when the repository was not enabled. */
  async remove(repository: string, executor: Executor = this.db): Promise<boolean> {
    const result = await executor
      .deleteFrom('enabled_repositories')
      .where('repository', '=', repository)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
