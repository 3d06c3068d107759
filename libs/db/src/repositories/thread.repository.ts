import type { TriggerSource } from '@caravel/contracts';
import { sql, type Selectable } from 'kysely';
import type { Thread } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import type { RowOf } from './row-of.js';
import type { ThreadStatus } from './states.js';

/** A conversation with Caravel (`threads`), its JSON columns parsed. */
export type ThreadRow = Omit<RowOf<Thread>, 'repository' | 'options' | 'replyTo'> & {
  /** The repository reference the thread's trigger gave (parsed by its readers). */
  repository: Record<string, unknown> | null;
  /** The thread's own settings (model, reasoning effort). */
  options: Record<string, unknown>;
  /** Where replies go (the triggers' `replyTo`, merged). */
  replyTo: Record<string, string | number>;
};

export interface ThreadUpsert {
  id: string;
  source: TriggerSource;
  title?: string;
  repositoryOwner?: string | null;
  repositoryName?: string | null;
  repository?: Record<string, unknown> | null;
  /** Merged over the stored settings: a later message may change one without repeating all. */
  options?: Record<string, unknown>;
  /** Merged over the stored pointer, like `options`. */
  replyTo?: Record<string, string | number>;
  /** Set when a person wrote this message (a later time wins). */
  humanAt?: Date | null;
  at?: Date;
}

export interface ThreadStatusChange {
  status: ThreadStatus;
  activeRunId: string | null;
  at?: Date;
  /** Compare-and-set: only change the thread while its active run is this one. */
  expectedActiveRunId?: string | null;
}

export interface ThreadListQuery {
  status?: ThreadStatus;
  source?: TriggerSource;
  /** `owner/name`: only threads working in that repository. */
  repository?: string;
  /** Only threads this person owns (`thread_owners.owner`, e.g. `github:octocat`). */
  owner?: string;
  /** Only threads updated at or after this time. */
  updatedSince?: Date;
  /** Only threads updated strictly before this time (for paging, newest first). */
  updatedBefore?: Date;
  limit?: number;
}

/** JSON columns come back parsed (PostgreSQL, PGlite); anything but an object reads as null. */
function asObject(value: unknown): Record<string, unknown> | null {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : null;
}

function toRow(row: Selectable<Thread>): ThreadRow {
  return {
    id: row.id,
    source: row.source,
    title: row.title,
    repositoryOwner: row.repository_owner,
    repositoryName: row.repository_name,
    repository: asObject(row.repository),
    options: asObject(row.options) ?? {},
    replyTo: (asObject(row.reply_to) ?? {}) as Record<string, string | number>,
    lastHumanAt: row.last_human_at,
    headSha: row.head_sha,
    status: row.status,
    activeRunId: row.active_run_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Threads: descriptive fields by upsert; status and active run by (optionally guarded) update. */
export class ThreadRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Creates the thread or refreshes its descriptive fields. Empty or missing values never erase
   * what is stored; status and active run are left alone.
   */
  async upsert(thread: ThreadUpsert, executor: Executor = this.db): Promise<ThreadRow> {
    const at = timeOr(thread.at);
    const row = await executor
      .insertInto('threads')
      .values({
        id: thread.id,
        source: thread.source,
        title: thread.title ?? '',
        repository_owner: thread.repositoryOwner ?? null,
        repository_name: thread.repositoryName ?? null,
        repository: thread.repository ? JSON.stringify(thread.repository) : null,
        options: JSON.stringify(thread.options ?? {}),
        reply_to: JSON.stringify(thread.replyTo ?? {}),
        last_human_at: thread.humanAt ?? null,
        created_at: at,
        updated_at: at,
      })
      .onConflict((conflict) =>
        conflict.column('id').doUpdateSet({
          title: sql`coalesce(nullif(excluded.title, ''), threads.title)`,
          repository_owner: sql`coalesce(excluded.repository_owner, threads.repository_owner)`,
          repository_name: sql`coalesce(excluded.repository_name, threads.repository_name)`,
          repository: sql`coalesce(excluded.repository, threads.repository)`,
          options: sql`threads.options || excluded.options`,
          reply_to: sql`threads.reply_to || excluded.reply_to`,
          last_human_at: sql`greatest(threads.last_human_at, excluded.last_human_at)`,
          updated_at: sql`excluded.updated_at`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  async get(id: string, executor: Executor = this.db): Promise<ThreadRow | null> {
    const row = await executor
      .selectFrom('threads')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Newest first. */
  async list(query: ThreadListQuery = {}, executor: Executor = this.db): Promise<ThreadRow[]> {
    let select = executor.selectFrom('threads').selectAll();
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    if (query.source !== undefined) select = select.where('source', '=', query.source);
    if (query.repository !== undefined) {
      const [owner = '', name = ''] = query.repository.split('/');
      select = select.where('repository_owner', '=', owner).where('repository_name', '=', name);
    }
    if (query.owner !== undefined) {
      const owner = query.owner;
      select = select.where('id', 'in', (sub) =>
        sub.selectFrom('thread_owners').select('thread_id').where('owner', '=', owner),
      );
    }
    if (query.updatedSince !== undefined)
      select = select.where('updated_at', '>=', query.updatedSince);
    if (query.updatedBefore !== undefined)
      select = select.where('updated_at', '<', query.updatedBefore);
    const rows = await select
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit ?? 50)
      .execute();
    return rows.map(toRow);
  }

  /** Records a pull request thread's new head; false when the thread does not exist. */
  async setHead(id: string, headSha: string, executor: Executor = this.db): Promise<boolean> {
    const result = await executor
      .updateTable('threads')
      .set({ head_sha: headSha, updated_at: timeOr(undefined) })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Sets status and active run; null when the thread is missing or the compare-and-set failed. */
  async setStatus(
    id: string,
    change: ThreadStatusChange,
    executor: Executor = this.db,
  ): Promise<ThreadRow | null> {
    let update = executor
      .updateTable('threads')
      .set({
        status: change.status,
        active_run_id: change.activeRunId,
        updated_at: timeOr(change.at),
      })
      .where('id', '=', id);
    if (change.expectedActiveRunId !== undefined) {
      update =
        change.expectedActiveRunId === null
          ? update.where('active_run_id', 'is', null)
          : update.where('active_run_id', '=', change.expectedActiveRunId);
    }
    const row = await update.returningAll().executeTakeFirst();
    return row ? toRow(row) : null;
  }
}
