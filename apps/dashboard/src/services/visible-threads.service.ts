import {
  IdentityRepository,
  ThreadPlanRepository,
  ThreadRepository,
  type ThreadListQuery,
  type ThreadRow,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import { triggerSource } from '@caravel/contracts';
import { IdentityDirectory } from '@caravel/integrations';
import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '../auth/session.types.js';
import { ThreadAccessPolicy, type ThreadPeople } from '../auth/thread-access.policy.js';

/** A list page is read again this many times larger while hidden threads leave it short. */
const GROWTH = 4;
/** The most rows one list read goes through looking for a member's page. */
const MAX_SCANNED = 5_000;

/** The thread's people as the policy asks for them: its owner, and a handle's GitHub login. */
export function threadPeopleOf(
  plans: ThreadPlanRepository,
  identities: IdentityRepository,
): ThreadPeople {
  const directory = new IdentityDirectory(identities);
  return {
    ownerOf: (threadId) => plans.ownerOf(threadId),
    async githubLoginOf(handle) {
      const at = handle.indexOf(':');
      // An owner named by a source the identity map does not know is nobody's login.
      const source = triggerSource.safeParse(handle.slice(0, at));
      if (at <= 0 || !source.success) return null;
      return directory.githubLoginFor({ source: source.data, externalId: handle.slice(at + 1) });
    },
  };
}

/**
 * The threads a caller may see ({@link ThreadAccessPolicy}), wherever a thread's data leaves
 * the dashboard: one thread (404 when hidden, as when missing: a hidden thread is not confirmed
 * to exist), a list filtered without shortening its page, the runs of visible threads only.
 */
@Injectable()
export class VisibleThreadsService {
  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(ThreadAccessPolicy) private readonly policy: ThreadAccessPolicy,
  ) {}

  /** The thread, or NOT_FOUND when it does not exist or the caller may not see it. */
  async thread(caller: Caller | null, id: string): Promise<ThreadRow> {
    const thread = await this.threads.get(id);
    if (!thread || !(await this.policy.mayRead(caller, thread))) {
      throw new AppError('NOT_FOUND', `no thread ${id}`);
    }
    return thread;
  }

  /**
   * The query's page of threads the caller may see: as many as `limit` when that many exist
   * (hidden ones are skipped, not counted), newest first, so paging by `until` still works.
   */
  async list(caller: Caller | null, query: ThreadListQuery): Promise<ThreadRow[]> {
    const limit = query.limit ?? 50;
    let read = limit;
    for (;;) {
      const rows = await this.threads.list({ ...query, limit: read });
      const visible = await this.visible(caller, rows);
      if (visible.length >= limit || rows.length < read || read >= MAX_SCANNED) {
        return visible.slice(0, limit);
      }
      read = Math.min(read * GROWTH, MAX_SCANNED);
    }
  }

  /** Whether the caller sees every thread unchecked (admin, machine, open read, no GitHub). */
  seesAll(caller: Caller | null): boolean {
    return this.policy.seesAll(caller);
  }

  /** Only the items whose thread the caller may see (runs, waiting runs, budget pauses). */
  async ofVisibleThreads<T extends { threadId: string }>(
    caller: Caller | null,
    items: T[],
  ): Promise<T[]> {
    if (this.policy.seesAll(caller)) return items;
    const seen = new Map<string, boolean>();
    const kept: T[] = [];
    for (const item of items) {
      if (!seen.has(item.threadId)) {
        const thread = await this.threads.get(item.threadId);
        seen.set(item.threadId, thread !== null && (await this.policy.mayRead(caller, thread)));
      }
      if (seen.get(item.threadId)) kept.push(item);
    }
    return kept;
  }

  /**
   * Only the items of repositories the caller may see (reviewed pull requests, review styles);
   * an item `repositoryOf` names no repository for (null) is kept.
   */
  async ofVisibleRepositories<T>(
    caller: Caller | null,
    items: T[],
    repositoryOf: (item: T) => { owner: string; name: string } | null,
  ): Promise<T[]> {
    if (this.policy.seesAll(caller)) return items;
    const kept: T[] = [];
    for (const item of items) {
      const repository = repositoryOf(item);
      if (!repository || (await this.policy.mayReadRepository(caller, repository))) kept.push(item);
    }
    return kept;
  }

  /** NOT_FOUND (`what`) unless the caller may see the repository. */
  async repository(
    caller: Caller | null,
    repository: { owner: string; name: string },
    what: string,
  ): Promise<void> {
    if (!(await this.policy.mayReadRepository(caller, repository))) {
      throw new AppError('NOT_FOUND', what);
    }
  }

  private async visible(caller: Caller | null, rows: ThreadRow[]): Promise<ThreadRow[]> {
    if (this.policy.seesAll(caller)) return rows;
    const kept: ThreadRow[] = [];
    for (const row of rows) if (await this.policy.mayRead(caller, row)) kept.push(row);
    return kept;
  }
}
