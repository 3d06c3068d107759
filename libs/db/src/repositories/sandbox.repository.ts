import type { Selectable } from 'kysely';
import type { RetiredSandbox, Sandbox } from '../generated/types.js';
import { inTransaction, timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';
import type { RetirementReason } from './states.js';

/** The sandbox bound to a thread (`sandboxes`). */
export type SandboxRow = RowOf<Sandbox>;

export interface SandboxBinding {
  id: string;
  threadId: string;
  provider: string;
  externalId: string;
  at?: Date;
}

/** How a sandbox left its thread, and where its work went. */
export interface Retirement {
  reason: RetirementReason;
  /** The sandbox still exists on its provider (kept for recovery). */
  kept: boolean;
  /** A git bundle of its work, when it was deleted with work in it. */
  snapshotPath?: string;
  snapshotCommit?: string;
  at?: Date;
}

/** A sandbox that was bound to a thread once (`retired_sandboxes`). */
export type RetiredSandboxRow = RowOf<RetiredSandbox>;

const toRetiredRow: (row: Selectable<RetiredSandbox>) => RetiredSandboxRow = rowOf<RetiredSandbox>;

const toRow: (row: Selectable<Sandbox>) => SandboxRow = rowOf<Sandbox>;

/** Thread -> sandbox bindings, one per thread, and the sandboxes threads had before. */
export class SandboxRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Binds the sandbox to its thread. A thread that already has one keeps it: the existing
   * binding comes back with `bound: false` (it is never replaced here).
   */
  async bind(
    binding: SandboxBinding,
    executor: Executor = this.db,
  ): Promise<{ sandbox: SandboxRow; bound: boolean }> {
    const at = timeOr(binding.at);
    const inserted = await executor
      .insertInto('sandboxes')
      .values({
        id: binding.id,
        thread_id: binding.threadId,
        provider: binding.provider,
        external_id: binding.externalId,
        created_at: at,
        last_used_at: at,
      })
      .onConflict((conflict) => conflict.column('thread_id').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { sandbox: toRow(inserted), bound: true };
    const existing = await this.getByThread(binding.threadId, executor);
    if (!existing) throw new Error(`sandbox binding for thread ${binding.threadId} vanished`);
    return { sandbox: existing, bound: false };
  }

  async getByThread(threadId: string, executor: Executor = this.db): Promise<SandboxRow | null> {
    const row = await executor
      .selectFrom('sandboxes')
      .selectAll()
      .where('thread_id', '=', threadId)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Records use of the thread's sandbox; false when the thread has none. */
  async touch(threadId: string, at?: Date, executor: Executor = this.db): Promise<boolean> {
    const result = await executor
      .updateTable('sandboxes')
      .set({ last_used_at: timeOr(at) })
      .where('thread_id', '=', threadId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Unbinds the thread's sandbox; false when there was none. */
  async delete(threadId: string, executor: Executor = this.db): Promise<boolean> {
    const result = await executor
      .deleteFrom('sandboxes')
      .where('thread_id', '=', threadId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
  /**
   * Unbinds sandbox `sandboxId` and records how it left, in one transaction. Null when it is no
   * longer bound (someone else retired it first).
   */
  async retire(
    sandboxId: string,
    retirement: Retirement,
    executor: Executor = this.db,
  ): Promise<RetiredSandboxRow | null> {
    return inTransaction(executor, async (trx) => {
      const removed = await trx
        .deleteFrom('sandboxes')
        .where('id', '=', sandboxId)
        .returningAll()
        .executeTakeFirst();
      if (!removed) return null;
      const retired = await trx
        .insertInto('retired_sandboxes')
        .values({
          id: removed.id,
          thread_id: removed.thread_id,
          provider: removed.provider,
          external_id: removed.external_id,
          reason: retirement.reason,
          kept: retirement.kept,
          snapshot_path: retirement.snapshotPath ?? null,
          snapshot_commit: retirement.snapshotCommit ?? null,
          created_at: removed.created_at,
          retired_at: timeOr(retirement.at),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRetiredRow(retired);
    });
  }

  /**
   * Retires `sandboxId` and binds `next` to the same thread, atomically: either the thread moves
   * to the new sandbox with the old one recorded, or nothing changes (null: the old one was no
   * longer bound).
   */
  async replace(
    sandboxId: string,
    retirement: Retirement,
    next: SandboxBinding,
    executor: Executor = this.db,
  ): Promise<{ retired: RetiredSandboxRow; sandbox: SandboxRow } | null> {
    return inTransaction(executor, async (trx) => {
      const retired = await this.retire(sandboxId, retirement, trx);
      if (!retired) return null;
      const { sandbox } = await this.bind(next, trx);
      return { retired, sandbox };
    });
  }

  /** Bindings not used since `before`, least recently used first. */
  async listIdle(before: Date, limit = 100, executor: Executor = this.db): Promise<SandboxRow[]> {
    const rows = await executor
      .selectFrom('sandboxes')
      .selectAll()
      .where('last_used_at', '<', before)
      .orderBy('last_used_at')
      .limit(limit)
      .execute();
    return rows.map(toRow);
  }

  /** The sandboxes a thread had before its current one, oldest first. */
  async listRetired(threadId: string, executor: Executor = this.db): Promise<RetiredSandboxRow[]> {
    const rows = await executor
      .selectFrom('retired_sandboxes')
      .selectAll()
      .where('thread_id', '=', threadId)
      .orderBy('retired_at')
      .orderBy('id')
      .execute();
    return rows.map(toRetiredRow);
  }
}
