import type { Selectable } from 'kysely';
import type { UserProfile } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** A person's own settings (`user_profiles`). */
export type UserProfileRow = RowOf<UserProfile>;

/** What a save sets; the pull-request fields default to draft and the team's policy. */
export interface UserProfileSave {
  identity: string;
  model: string | null;
  reasoningEffort: string | null;
  draftPullRequests?: boolean;
  alwaysCreatePullRequests?: boolean | null;
  /** `owner/name` for the person's requests that name no repository; null: none. */
  defaultRepository?: string | null;
  /** The model the person's runs fall back to; null: the team's. */
  fallbackModel?: string | null;
  /** "Auto-fix CI" for the PRs of the person's threads; null: the team's default (on). */
  autofixCi?: boolean | null;
  /** The model the person's runs' subagents use; null: the team's. */
  subagentModel?: string | null;
  at?: Date;
}

const toRow: (row: Selectable<UserProfile>) => UserProfileRow = rowOf<UserProfile>;

/** Profiles by identity; saving replaces the person's settings (null clears a field). */
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

  async save(profile: UserProfileSave, executor: Executor = this.db): Promise<UserProfileRow> {
    const values = {
      identity: profile.identity,
      model: profile.model,
      reasoning_effort: profile.reasoningEffort,
      draft_pull_requests: profile.draftPullRequests ?? true,
      always_create_pull_requests: profile.alwaysCreatePullRequests ?? null,
      default_repository: profile.defaultRepository ?? null,
      fallback_model: profile.fallbackModel ?? null,
      autofix_ci: profile.autofixCi ?? null,
      subagent_model: profile.subagentModel ?? null,
      updated_at: timeOr(profile.at),
    };
    const row = await executor
      .insertInto('user_profiles')
      .values(values)
      .onConflict((conflict) => conflict.column('identity').doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }
}
