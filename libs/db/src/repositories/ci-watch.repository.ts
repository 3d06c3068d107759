import { sql, type Selectable, type Updateable } from 'kysely';
import { toJson } from '../connection/json.js';
import type { CiWatch } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import type { RowOf } from './row-of.js';

/** A watched pull request (`ci_watches`), its JSON columns as arrays. */
export type CiWatchRow = Omit<RowOf<CiWatch>, 'agentHeads' | 'checks' | 'handledKeys'> & {
  agentHeads: string[];
  /** The latest report of each check at `headSha`, as stored (the caller validates them). */
  checks: unknown[];
  handledKeys: string[];
};

/** `owner/repo#number`, lower-cased: a pull request's watch key. */
export function ciWatchKey(owner: string, repo: string, number: number): string {
  return `${owner}/${repo}#${number}`.toLowerCase();
}

export interface NewCiWatch {
  id: string;
  owner: string;
  repo: string;
  number: number;
  url: string;
  threadId: string;
  asked: boolean;
  /** A head the agent pushed, when the watch starts from its push. */
  agentHead?: string | undefined;
  at?: Date;
}

/** What one evaluation keeps (every field of the evaluation's state, written together). */
export interface CiWatchSave {
  headSha: string | null;
  checks: unknown[];
  mergeable: boolean | null;
  fixRuns: number;
  limitAnnounced: boolean;
  handledKeys: string[];
  rerunsAtHead: number;
  greenFingerprint: string | null;
  greenSince: Date | null;
  announcedHead: string | null;
  retryAt: Date | null;
}

/** Heads kept per watch: a fix loop is capped well below this. */
const AGENT_HEADS_KEPT = 50;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function toRow(row: Selectable<CiWatch>): CiWatchRow {
  return {
    id: row.id,
    pullRequestKey: row.pull_request_key,
    repositoryOwner: row.repository_owner,
    repositoryName: row.repository_name,
    pullRequest: row.pull_request,
    pullRequestUrl: row.pull_request_url,
    threadId: row.thread_id,
    asked: row.asked,
    active: row.active,
    stoppedReason: row.stopped_reason,
    autofix: row.autofix,
    headSha: row.head_sha,
    agentHeads: strings(row.agent_heads),
    checks: Array.isArray(row.checks) ? (row.checks as unknown[]) : [],
    mergeable: row.mergeable,
    fixRuns: row.fix_runs,
    limitAnnounced: row.limit_announced,
    handledKeys: strings(row.handled_keys),
    rerunsAtHead: row.reruns_at_head,
    greenFingerprint: row.green_fingerprint,
    greenSince: row.green_since,
    announcedHead: row.announced_head,
    retryAt: row.retry_at,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * CI watches: one per pull request. Every write of an evaluation is a compare-and-set on
 * `version`, so two evaluations of one pull request at once (a check delivery and the sweep)
 * never both dispatch: the loser reads again.
 */
export class CiWatchRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Starts (or restarts) the watch of a pull request: active again, its thread and the agent's
   * head recorded; the counts of an earlier watch of the same pull request are kept.
   */
  async start(watch: NewCiWatch): Promise<CiWatchRow> {
    const at = timeOr(watch.at);
    const heads = watch.agentHead ? [watch.agentHead] : [];
    const row = await this.db
      .insertInto('ci_watches')
      .values({
        id: watch.id,
        pull_request_key: ciWatchKey(watch.owner, watch.repo, watch.number),
        repository_owner: watch.owner,
        repository_name: watch.repo,
        pull_request: watch.number,
        pull_request_url: watch.url,
        thread_id: watch.threadId,
        asked: watch.asked,
        agent_heads: toJson(heads),
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) =>
        oc.column('pull_request_key').doUpdateSet((eb) => ({
          active: true,
          stopped_reason: null,
          thread_id: eb.ref('excluded.thread_id'),
          asked: sql<boolean>`ci_watches.asked or excluded.asked`,
          agent_heads: sql`(select coalesce(jsonb_agg(h), '[]'::jsonb) from (
            select h from jsonb_array_elements(ci_watches.agent_heads || excluded.agent_heads) h
            offset greatest(jsonb_array_length(ci_watches.agent_heads || excluded.agent_heads) - ${AGENT_HEADS_KEPT}, 0)) kept)`,
          version: sql<number>`ci_watches.version + 1`,
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  async get(id: string): Promise<CiWatchRow | null> {
    const row = await this.db
      .selectFrom('ci_watches')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  async findByPullRequest(owner: string, repo: string, number: number): Promise<CiWatchRow | null> {
    const row = await this.db
      .selectFrom('ci_watches')
      .selectAll()
      .where('pull_request_key', '=', ciWatchKey(owner, repo, number))
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Active watches of a repository whose head (or one of the agent's heads) is `sha`. */
  async activeAtHead(owner: string, repo: string, sha: string): Promise<CiWatchRow[]> {
    const rows = await this.db
      .selectFrom('ci_watches')
      .selectAll()
      .where('active', '=', true)
      .where(sql<boolean>`lower(repository_owner) = ${owner.toLowerCase()}`)
      .where(sql<boolean>`lower(repository_name) = ${repo.toLowerCase()}`)
      .where((eb) =>
        eb.or([eb('head_sha', '=', sha), sql<boolean>`agent_heads @> ${toJson([sha])}::jsonb`]),
      )
      .execute();
    return rows.map(toRow);
  }

  /** Active watches due for another look (a settling green), the earliest first. */
  async due(now: Date, limit: number): Promise<CiWatchRow[]> {
    const rows = await this.db
      .selectFrom('ci_watches')
      .selectAll()
      .where('active', '=', true)
      .where('retry_at', '<=', now)
      .orderBy('retry_at')
      .limit(limit)
      .execute();
    return rows.map(toRow);
  }

  /** Active watches, the least recently evaluated first (the merge-conflict sweep). */
  async listActive(limit: number): Promise<CiWatchRow[]> {
    const rows = await this.db
      .selectFrom('ci_watches')
      .selectAll()
      .where('active', '=', true)
      .orderBy('updated_at')
      .limit(limit)
      .execute();
    return rows.map(toRow);
  }

  /** Records a head the agent pushed on its watched pull request. */
  addAgentHead(id: string, sha: string, at?: Date): Promise<boolean> {
    const head = toJson([sha]);
    return this.bump(id, at, {
      agent_heads: sql`(case when agent_heads @> ${head}::jsonb then agent_heads
        else agent_heads || ${head}::jsonb end)`,
    });
  }

  /** `@caravel autofix on|off` on the pull request (a stopped watch is started again by `on`). */
  setAutofix(id: string, autofix: boolean, at?: Date): Promise<boolean> {
    const restart = autofix ? { active: true, stopped_reason: null } : {};
    return this.bump(id, at, { autofix, ...restart });
  }

  /** Stops an active watch; false when it was not active. */
  stop(id: string, reason: string, at?: Date): Promise<boolean> {
    return this.bump(id, at, { active: false, stopped_reason: reason, retry_at: null }, true);
  }

  /** One write to a watch outside an evaluation: it moves the version, so a racing one rereads. */
  private async bump(
    id: string,
    at: Date | undefined,
    values: Updateable<CiWatch>,
    onlyActive = false,
  ): Promise<boolean> {
    let query = this.db
      .updateTable('ci_watches')
      .set({ ...values, version: sql<number>`version + 1`, updated_at: timeOr(at) })
      .where('id', '=', id);
    if (onlyActive) query = query.where('active', '=', true);
    const result = await query.executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Writes an evaluation's state when the watch is still at `version` (compare-and-set); the row
   * as written, or null when another evaluation wrote first.
   */
  async saveState(
    id: string,
    version: number,
    state: CiWatchSave,
    at?: Date,
  ): Promise<CiWatchRow | null> {
    const row = await this.db
      .updateTable('ci_watches')
      .set({
        head_sha: state.headSha,
        checks: toJson(state.checks),
        mergeable: state.mergeable,
        fix_runs: state.fixRuns,
        limit_announced: state.limitAnnounced,
        handled_keys: toJson(state.handledKeys),
        reruns_at_head: state.rerunsAtHead,
        green_fingerprint: state.greenFingerprint,
        green_since: state.greenSince,
        announced_head: state.announcedHead,
        retry_at: state.retryAt,
        version: version + 1,
        updated_at: timeOr(at),
      })
      .where('id', '=', id)
      .where('version', '=', version)
      .returningAll()
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }
}
