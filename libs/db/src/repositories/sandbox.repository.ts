import type { Selectable } from 'kysely';
import type { Sandbox } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';

/** The sandbox bound to a thread (`sandboxes`). */
export interface SandboxRow {
  id: string;
  threadId: string;
  provider: string;
  externalId: string;
  status: string;
  createdAt: Date;
  lastUsedAt: Date;
}

export interface SandboxBinding {
  id: string;
  threadId: string;
  provider: string;
  externalId: string;
  status?: string;
  at?: Date;
}

function toRow(row: Selectable<Sandbox>): SandboxRow {
  return {
    id: row.id,
    threadId: row.thread_id,
    provider: row.provider,
    externalId: row.external_id,
    status: row.status,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

/** Thread -> sandbox bindings, one per thread. */
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
        status: binding.status ?? 'ready',
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

  /** Sets the binding's status; false when the thread has no sandbox. */
  async setStatus(
    threadId: string,
    status: string,
    executor: Executor = this.db,
  ): Promise<boolean> {
    const result = await executor
      .updateTable('sandboxes')
      .set({ status })
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
}
