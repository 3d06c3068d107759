import type { Selectable } from 'kysely';
import type { TeamDefaults } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import type { RowOf } from './row-of.js';

/** The team's defaults (`team_defaults`, one row); a null field leaves the environment's. */
export type TeamDefaultsRow = Omit<RowOf<TeamDefaults>, 'id'>;

/** What a save sets: every field (null: the environment's), and who saved it. */
export type TeamDefaultsSave = Omit<TeamDefaultsRow, 'updatedAt'> & { at?: Date };

const TEAM = 'team';

function toRow(row: Selectable<TeamDefaults>): TeamDefaultsRow {
  return {
    model: row.model,
    reasoningEffort: row.reasoning_effort,
    fallbackModel: row.fallback_model,
    subagentModel: row.subagent_model,
    draftPullRequests: row.draft_pull_requests,
    alwaysCreatePullRequests: row.always_create_pull_requests,
    updatedBy: row.updated_by,
    updatedAt: row.updated_at,
  };
}

/** The team's defaults kept in the dashboard: a save replaces them. */
export class TeamDefaultsRepository {
  constructor(private readonly db: Executor) {}

  /** The saved defaults, or null when no admin saved any (the environment's apply). */
  async get(executor: Executor = this.db): Promise<TeamDefaultsRow | null> {
    const row = await executor
      .selectFrom('team_defaults')
      .selectAll()
      .where('id', '=', TEAM)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  async save(save: TeamDefaultsSave, executor: Executor = this.db): Promise<TeamDefaultsRow> {
    const values = {
      model: save.model,
      reasoning_effort: save.reasoningEffort,
      fallback_model: save.fallbackModel,
      subagent_model: save.subagentModel,
      draft_pull_requests: save.draftPullRequests,
      always_create_pull_requests: save.alwaysCreatePullRequests,
      updated_by: save.updatedBy,
      updated_at: timeOr(save.at),
    };
    const row = await executor
      .insertInto('team_defaults')
      .values({ id: TEAM, ...values })
      .onConflict((conflict) => conflict.column('id').doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }
}
