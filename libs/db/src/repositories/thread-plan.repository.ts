import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { ThreadPlan } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** One saved revision of a thread's plan (`thread_plans`); its content is sanitised markdown. */
export type ThreadPlanRow = RowOf<ThreadPlan>;

/** A plan to save as the thread's next revision. */
export interface ThreadPlanSave {
  threadId: string;
  title: string;
  content: string;
  savedBy?: string | null;
  at?: Date;
}

/** An approval of the thread's latest plan. */
export interface ThreadPlanApproval {
  threadId: string;
  approvedBy: string;
  feedback?: string | null;
  at?: Date;
}

const toRow: (row: Selectable<ThreadPlan>) => ThreadPlanRow = rowOf<ThreadPlan>;

/**
 * Thread plans and thread owners. Each save is a new revision (the unique thread + revision
 * makes two concurrent saves fail rather than share a number); approval marks the latest
 * revision. The owner of a thread is claimed once: the first claim wins and later ones read it.
 */
export class ThreadPlanRepository {
  constructor(private readonly db: Executor) {}

  /** Saves `plan` as the thread's next revision, awaiting approval. */
  async save(plan: ThreadPlanSave): Promise<ThreadPlanRow> {
    const row = await this.db
      .insertInto('thread_plans')
      .values({
        id: randomUUID(),
        thread_id: plan.threadId,
        revision: sql<number>`(select coalesce(max(revision), 0) + 1 from thread_plans where thread_id = ${plan.threadId})`,
        title: plan.title,
        content: plan.content,
        saved_by: plan.savedBy ?? null,
        created_at: timeOr(plan.at),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  /** The thread's latest plan, or null when it has none. */
  async latest(threadId: string): Promise<ThreadPlanRow | null> {
    const row = await this.db
      .selectFrom('thread_plans')
      .selectAll()
      .where('thread_id', '=', threadId)
      .orderBy('revision', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Every revision of the thread's plan, oldest first. */
  async list(threadId: string): Promise<ThreadPlanRow[]> {
    const rows = await this.db
      .selectFrom('thread_plans')
      .selectAll()
      .where('thread_id', '=', threadId)
      .orderBy('revision', 'asc')
      .execute();
    return rows.map(toRow);
  }

  /** Marks the latest revision approved; null when the thread has no plan. */
  async approveLatest(approval: ThreadPlanApproval): Promise<ThreadPlanRow | null> {
    const latest = await this.latest(approval.threadId);
    if (!latest) return null;
    const row = await this.db
      .updateTable('thread_plans')
      .set({
        status: 'approved',
        approved_by: approval.approvedBy,
        approved_at: timeOr(approval.at),
        feedback: approval.feedback ?? null,
      })
      .where('id', '=', latest.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  /** Records `owner` as the thread's owner unless it has one; returns the owner either way. */
  async claimOwner(threadId: string, owner: string, at?: Date): Promise<string> {
    await this.db
      .insertInto('thread_owners')
      .values({ thread_id: threadId, owner, claimed_at: timeOr(at) })
      .onConflict((oc) => oc.column('thread_id').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('thread_owners')
      .select('owner')
      .where('thread_id', '=', threadId)
      .executeTakeFirstOrThrow();
    return row.owner;
  }

  /** The thread's owner, or null when none was claimed. */
  async ownerOf(threadId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('thread_owners')
      .select('owner')
      .where('thread_id', '=', threadId)
      .executeTakeFirst();
    return row?.owner ?? null;
  }
}
