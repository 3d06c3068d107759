import type { Selectable } from 'kysely';
import type { RepositoryInstructions } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** The most a repository's instructions may hold (a CHECK in the migration says the same). */
export const MAX_REPOSITORY_INSTRUCTIONS_CHARS = 8000;

/** A repository's instructions (`repository_instructions`): `owner/name` lower-cased. */
export type RepositoryInstructionsRow = RowOf<RepositoryInstructions>;

const toRow: (row: Selectable<RepositoryInstructions>) => RepositoryInstructionsRow =
  rowOf<RepositoryInstructions>;

/** GitHub names are case-insensitive: `Acme/Web` and `acme/web` are one repository. */
const keyOf = (repository: string) => repository.toLowerCase();

/** Repositories' instructions kept by admins: one row per repository, replaced on every save. */
export class RepositoryInstructionsRepository {
  constructor(private readonly db: Executor) {}

  async save(
    save: { repository: string; instructions: string; updatedBy: string; at?: Date },
    executor: Executor = this.db,
  ): Promise<RepositoryInstructionsRow> {
    const values = {
      instructions: save.instructions,
      updated_by: save.updatedBy,
      updated_at: timeOr(save.at),
    };
    const row = await executor
      .insertInto('repository_instructions')
      .values({ repository: keyOf(save.repository), ...values })
      .onConflict((conflict) => conflict.column('repository').doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  /** The repository's instructions, or null when it has none. */
  async find(
    repository: string,
    executor: Executor = this.db,
  ): Promise<RepositoryInstructionsRow | null> {
    const row = await executor
      .selectFrom('repository_instructions')
      .selectAll()
      .where('repository', '=', keyOf(repository))
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Every repository's instructions, by name. */
  async list(executor: Executor = this.db): Promise<RepositoryInstructionsRow[]> {
    const rows = await executor
      .selectFrom('repository_instructions')
      .selectAll()
      .orderBy('repository')
      .execute();
    return rows.map(toRow);
  }

  /** False when the repository had none. */
  async remove(repository: string, executor: Executor = this.db): Promise<boolean> {
    const result = await executor
      .deleteFrom('repository_instructions')
      .where('repository', '=', keyOf(repository))
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
