import { sql } from 'kysely';
import type { UserInstructions } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import type { RowOf } from './row-of.js';

/** One person's standing instructions (`user_instructions`). */
export type UserInstructionsRow = RowOf<UserInstructions>;

/** Per-user instructions: one row per person, replaced on every save. */
export class UserInstructionsRepository {
  constructor(private readonly db: Executor) {}

  /** Stores `instructions` as `subject`'s, replacing what was there. */
  async save(subject: string, instructions: string, at?: Date): Promise<UserInstructionsRow> {
    const row = await this.db
      .insertInto('user_instructions')
      .values({ subject, instructions, updated_at: timeOr(at) })
      .onConflict((oc) =>
        oc.column('subject').doUpdateSet({
          instructions: (eb) => eb.ref('excluded.instructions'),
          updated_at: at ?? sql<Date>`now()`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return { subject: row.subject, instructions: row.instructions, updatedAt: row.updated_at };
  }

  /** `subject`'s instructions, or null when they have none. */
  async find(subject: string): Promise<UserInstructionsRow | null> {
    const row = await this.db
      .selectFrom('user_instructions')
      .selectAll()
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row
      ? { subject: row.subject, instructions: row.instructions, updatedAt: row.updated_at }
      : null;
  }

  /** Everyone's instructions, the most recently changed first. */
  async list(limit = 200): Promise<UserInstructionsRow[]> {
    const rows = await this.db
      .selectFrom('user_instructions')
      .selectAll()
      .orderBy('updated_at', 'desc')
      .orderBy('subject')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      subject: row.subject,
      instructions: row.instructions,
      updatedAt: row.updated_at,
    }));
  }

  /** Forgets `subject`'s instructions; false when they had none. */
  async remove(subject: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('user_instructions')
      .where('subject', '=', subject)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
