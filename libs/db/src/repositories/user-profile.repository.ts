import type { Selectable } from 'kysely';
import type { UserProfile } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';

/** A person's own model choice (`user_profiles`). */
export interface UserProfileRow {
  identity: string;
  model: string | null;
  reasoningEffort: string | null;
  updatedAt: Date;
}

function toRow(row: Selectable<UserProfile>): UserProfileRow {
  return {
    identity: row.identity,
    model: row.model,
    reasoningEffort: row.reasoning_effort,
    updatedAt: row.updated_at,
  };
}

/** Profiles by identity; saving replaces the person's choice (null clears a field). */
export class UserProfileRepository {
  constructor(private readonly db: Executor) {}

  async get(identity: string, executor: Executor = this.db): Promise<UserProfileRow | null> {
    const row = await executor
      .selectFrom('user_profiles')
      .selectAll()
      .where('identity', '=', identity)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  async save(
    profile: { identity: string; model: string | null; reasoningEffort: string | null; at?: Date },
    executor: Executor = this.db,
  ): Promise<UserProfileRow> {
    const values = {
      identity: profile.identity,
      model: profile.model,
      reasoning_effort: profile.reasoningEffort,
      updated_at: timeOr(profile.at),
    };
    const row = await executor
      .insertInto('user_profiles')
      .values(values)
      .onConflict((conflict) =>
        conflict.column('identity').doUpdateSet({
          model: values.model,
          reasoning_effort: values.reasoning_effort,
          updated_at: values.updated_at,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }
}
