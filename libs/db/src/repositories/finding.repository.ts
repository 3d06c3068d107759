import { isDeepStrictEqual } from 'node:util';
import { findingSchema, type Finding } from '@caravel/findings';
import { AppError } from '@caravel/errors';
import type { Insertable, Selectable } from 'kysely';
import { toJson } from '../connection/json.js';
import type { LedgerFinding, ReviewLedger } from '../generated/types.js';
import { inTransaction, timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';
import type { ReviewVerdictEvent, ReviewVerdictReason } from './states.js';

/** A pull request's review ledger (`review_ledgers`), keyed by its reviewer thread. */
export type ReviewLedgerRow = RowOf<ReviewLedger>;
/** One finding as stored (`findings`); `findingOf` turns it into the model's `Finding`. */
export type LedgerFindingRow = RowOf<LedgerFinding>;

/** The pull request a ledger is for. */
export interface LedgerKey {
  /** Its reviewer thread id (`githubReviewThreadId`). */
  threadId: string;
  owner: string;
  repo: string;
  number: number;
}

/** The verdict of a publish, as the ledger keeps it. */
export interface LedgerVerdict {
  event: ReviewVerdictEvent;
  reason: ReviewVerdictReason;
  /** GitHub's id of the review the publish posted; null when it posted none. */
  reviewId: string | null;
  /** The head the publish covered. */
  sha: string;
}

/**
 * What to record on a ledger (heads, the reviewer's check run, the latest publish's verdict); an
 * absent field is left as it is.
 */
export interface LedgerHeads {
  headSha?: string | null;
  lastReviewedSha?: string | null;
  mergeBaseSha?: string | null;
  checkRunId?: string | null;
  verdict?: LedgerVerdict;
}

const LEDGER_FIELDS = ['headSha', 'lastReviewedSha', 'mergeBaseSha', 'checkRunId'] as const;

/** What an append did: `appended` false when an open finding had its fingerprint (or its id). */
export interface AppendOutcome {
  finding: Finding;
  appended: boolean;
}

/** What an update did: `changed` false when the change returned what was stored. */
export interface UpdateOutcome {
  finding: Finding;
  changed: boolean;
}

/** What a whole-ledger update wrote: ids updated, ids added, and the ledger after it. */
export interface LedgerUpdateOutcome {
  findings: Finding[];
  updated: string[];
  added: string[];
}

const toLedgerRow: (row: Selectable<ReviewLedger>) => ReviewLedgerRow = rowOf<ReviewLedger>;

function sameVerdict(ledger: ReviewLedgerRow, verdict: LedgerVerdict): boolean {
  return (
    ledger.verdictEvent === verdict.event &&
    ledger.verdictReason === verdict.reason &&
    ledger.verdictReviewId === verdict.reviewId &&
    ledger.verdictSha === verdict.sha
  );
}

const toRow: (row: Selectable<LedgerFinding>) => LedgerFindingRow = rowOf<LedgerFinding>;

const isoOrNull = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** The stored finding as the model's `Finding` (validated by `findingSchema`). */
export function findingOf(row: LedgerFindingRow): Finding {
  return findingSchema.parse({
    id: row.id,
    fingerprint: row.fingerprint,
    author: row.author,
    severity: row.severity,
    confidence: row.confidence,
    category: row.category,
    title: row.title,
    file: row.file,
    startLine: row.startLine,
    endLine: row.endLine,
    side: row.side,
    inDiff: row.inDiff,
    description: row.description,
    suggestion: row.suggestion,
    status: row.status,
    resolution: row.resolution,
    firstSeenSha: row.firstSeenSha,
    lastConfirmedSha: row.lastConfirmedSha,
    anchor: {
      file: row.anchorFile,
      startLine: row.anchorStartLine,
      endLine: row.anchorEndLine,
      side: row.anchorSide,
      sha: row.anchorSha,
    },
    diffHunk: row.diffHunk,
    recheck: row.recheck,
    surface: {
      state: row.surfaceState,
      reviewId: row.surfaceReviewId,
      commentId: row.surfaceCommentId,
      threadId: row.surfaceThreadId,
      severityThresholdAtPublish: row.surfaceThreshold,
      surfacedAtSha: row.surfaceSha,
      resolutionCommentId: row.surfaceResolutionCommentId,
      lastSyncAt: isoOrNull(row.surfaceLastSyncAt),
      lastError: row.surfaceLastError,
    },
    reports: row.reports,
    interactions: row.interactions,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  });
}

/** The columns of `finding` (every one but the thread id, which never changes). */
function columnsOf(finding: Finding): Omit<Insertable<LedgerFinding>, 'thread_id'> {
  const { anchor, surface } = finding;
  return {
    id: finding.id,
    fingerprint: finding.fingerprint,
    author: toJson(finding.author),
    severity: finding.severity,
    confidence: finding.confidence,
    category: finding.category,
    title: finding.title,
    file: finding.file,
    start_line: finding.startLine,
    end_line: finding.endLine,
    side: finding.side,
    in_diff: finding.inDiff,
    description: finding.description,
    suggestion: finding.suggestion,
    status: finding.status,
    resolution: finding.resolution === null ? null : toJson(finding.resolution),
    first_seen_sha: finding.firstSeenSha,
    last_confirmed_sha: finding.lastConfirmedSha,
    anchor_file: anchor.file,
    anchor_start_line: anchor.startLine,
    anchor_end_line: anchor.endLine,
    anchor_side: anchor.side,
    anchor_sha: anchor.sha,
    diff_hunk: finding.diffHunk,
    recheck: toJson(finding.recheck),
    surface_state: surface.state,
    surface_review_id: surface.reviewId,
    surface_comment_id: surface.commentId,
    surface_thread_id: surface.threadId,
    surface_threshold: surface.severityThresholdAtPublish,
    surface_sha: surface.surfacedAtSha,
    surface_resolution_comment_id: surface.resolutionCommentId,
    surface_last_sync_at: surface.lastSyncAt === null ? null : new Date(surface.lastSyncAt),
    surface_last_error: surface.lastError,
    reports: toJson(finding.reports),
    interactions: toJson(finding.interactions),
    created_at: new Date(finding.createdAt),
    updated_at: new Date(finding.updatedAt),
  };
}

/**
 * The review ledgers and their findings: one ledger row per pull request (its reviewer thread),
 * one row per finding. Every mutation re-reads what it changes under a row lock in one
 * transaction (the caller's, when it passes one) and writes only what changed; appends lock the
 * ledger row, so two writers filing the same finding leave one row, and different findings filed
 * at once are all kept. Which changes are allowed is `@caravel/findings`' business, not this
 * class's: it stores what the model's functions return.
 */
export class FindingRepository {
  constructor(private readonly db: Executor) {}

  /** Creates the pull request's ledger unless it exists; returns it either way. */
  async openLedger(key: LedgerKey, at?: Date): Promise<ReviewLedgerRow> {
    await this.db
      .insertInto('review_ledgers')
      .values({
        thread_id: key.threadId,
        owner: key.owner,
        repo: key.repo,
        number: key.number,
        created_at: timeOr(at),
        updated_at: timeOr(at),
      })
      .onConflict((oc) => oc.column('thread_id').doNothing())
      .execute();
    const ledger = await this.getLedger(key.threadId);
    if (!ledger) throw new AppError('NOT_FOUND', `review ledger ${key.threadId} vanished`);
    return ledger;
  }

  /** The ledger of a reviewer thread, or null when it has none. */
  async getLedger(threadId: string): Promise<ReviewLedgerRow | null> {
    const row = await this.db
      .selectFrom('review_ledgers')
      .selectAll()
      .where('thread_id', '=', threadId)
      .executeTakeFirst();
    return row ? toLedgerRow(row) : null;
  }

  /** Records heads on the ledger (locked, written only when one differs); NOT_FOUND without it. */
  async moveLedger(threadId: string, heads: LedgerHeads, at?: Date): Promise<ReviewLedgerRow> {
    return inTransaction(this.db, async (trx) => {
      const current = await this.lockLedger(trx, threadId);
      const changes = LEDGER_FIELDS.filter(
        (field) => heads[field] !== undefined && heads[field] !== current[field],
      );
      const { verdict } = heads;
      const verdictChanged = verdict !== undefined && !sameVerdict(current, verdict);
      if (changes.length === 0 && !verdictChanged) return current;
      const next = { ...current };
      for (const field of changes) next[field] = heads[field] ?? null;
      const row = await trx
        .updateTable('review_ledgers')
        .set({
          head_sha: next.headSha,
          last_reviewed_sha: next.lastReviewedSha,
          merge_base_sha: next.mergeBaseSha,
          check_run_id: next.checkRunId,
          ...(verdictChanged
            ? {
                verdict_event: verdict.event,
                verdict_reason: verdict.reason,
                verdict_review_id: verdict.reviewId,
                verdict_sha: verdict.sha,
                verdict_at: timeOr(at),
              }
            : {}),
          updated_at: timeOr(at),
        })
        .where('thread_id', '=', threadId)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toLedgerRow(row);
    });
  }

  /**
   * Records why the pull request's head `sha` was not reviewed when it was asked to be, or, with
   * null, that a review of the head started (the reason goes). Locked, written only when it
   * changes what the ledger says; NOT_FOUND without the ledger.
   */
  async noteSkip(
    threadId: string,
    skip: { reason: string; sha: string } | null,
    at?: Date,
  ): Promise<ReviewLedgerRow> {
    return inTransaction(this.db, async (trx) => {
      const current = await this.lockLedger(trx, threadId);
      const same = skip
        ? current.skipReason === skip.reason && current.skippedSha === skip.sha
        : current.skipReason === null;
      if (same) return current;
      const row = await trx
        .updateTable('review_ledgers')
        .set({
          skip_reason: skip?.reason ?? null,
          skipped_sha: skip?.sha ?? null,
          skipped_at: skip ? timeOr(at) : null,
          updated_at: timeOr(at),
        })
        .where('thread_id', '=', threadId)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toLedgerRow(row);
    });
  }

  /**
   * Adds `finding` to the ledger of `threadId` (which must exist). Idempotent: when an open
   * finding of the ledger has the same fingerprint, or a finding has the same id, that one is
   * returned with `appended: false` and nothing is written.
   */
  async append(threadId: string, finding: Finding): Promise<AppendOutcome> {
    return inTransaction(this.db, async (trx) => {
      await this.lockLedger(trx, threadId);
      const existing = await trx
        .selectFrom('findings')
        .selectAll()
        .where('thread_id', '=', threadId)
        .where((eb) =>
          eb.or([
            eb('id', '=', finding.id),
            eb.and([eb('fingerprint', '=', finding.fingerprint), eb('status', '=', 'open')]),
          ]),
        )
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst();
      if (existing) return { finding: findingOf(toRow(existing)), appended: false };
      await this.insert(trx, threadId, finding);
      return { finding, appended: true };
    });
  }

  /** One finding, or null. */
  async get(id: string): Promise<Finding | null> {
    const row = await this.db
      .selectFrom('findings')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? findingOf(toRow(row)) : null;
  }

  /** The ledger's findings (only those with `status` when given), oldest first. */
  async list(threadId: string, filter: { status?: Finding['status'] } = {}): Promise<Finding[]> {
    let query = this.db.selectFrom('findings').selectAll().where('thread_id', '=', threadId);
    if (filter.status) query = query.where('status', '=', filter.status);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map((row) => findingOf(toRow(row)));
  }

  /**
   * Applies `change` to the finding as stored now, under its row lock, and writes the result
   * when it differs. `change` may throw (a refused transition): nothing is written. NOT_FOUND
   * when no finding has `id`.
   */
  async update(id: string, change: (current: Finding) => Finding): Promise<UpdateOutcome> {
    return inTransaction(this.db, async (trx) => {
      const row = await trx
        .selectFrom('findings')
        .selectAll()
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!row) throw new AppError('NOT_FOUND', `no finding ${id}`);
      const current = findingOf(toRow(row));
      const next = change(current);
      const changed = await this.write(trx, current, next);
      return { finding: next, changed };
    });
  }

  /**
   * Applies `change` to the whole ledger of `threadId` as stored now (reconcile, ingest, a
   * publish), under the ledger's lock and its findings' row locks. Findings it returns with a
   * known id are written when they differ, new ids are added; findings it leaves out stay as
   * they are.
   */
  async updateAll(
    threadId: string,
    change: (current: Finding[]) => Finding[],
  ): Promise<LedgerUpdateOutcome> {
    return inTransaction(this.db, async (trx) => {
      await this.lockLedger(trx, threadId);
      const rows = await trx
        .selectFrom('findings')
        .selectAll()
        .where('thread_id', '=', threadId)
        .orderBy('created_at')
        .orderBy('id')
        .forUpdate()
        .execute();
      const current = new Map(rows.map((row) => [row.id, findingOf(toRow(row))]));
      const updated: string[] = [];
      const added: string[] = [];
      for (const next of change([...current.values()])) {
        const before = current.get(next.id);
        if (!before) {
          await this.insert(trx, threadId, next);
          added.push(next.id);
        } else if (await this.write(trx, before, next)) {
          updated.push(next.id);
        }
        current.set(next.id, next);
      }
      return { findings: [...current.values()], updated, added };
    });
  }

  private async lockLedger(trx: Executor, threadId: string): Promise<ReviewLedgerRow> {
    const row = await trx
      .selectFrom('review_ledgers')
      .selectAll()
      .where('thread_id', '=', threadId)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', `no review ledger for thread ${threadId}`);
    return toLedgerRow(row);
  }

  private async insert(trx: Executor, threadId: string, finding: Finding): Promise<void> {
    findingSchema.parse(finding);
    await trx
      .insertInto('findings')
      .values({ ...columnsOf(finding), thread_id: threadId })
      .execute();
  }

  /** Writes `next` over `current` when they differ; true when it wrote. */
  private async write(trx: Executor, current: Finding, next: Finding): Promise<boolean> {
    if (next.id !== current.id) {
      throw new AppError('CONFLICT', `a change of finding ${current.id} returned ${next.id}`);
    }
    if (next === current || isDeepStrictEqual(next, current)) return false;
    findingSchema.parse(next);
    await trx.updateTable('findings').set(columnsOf(next)).where('id', '=', current.id).execute();
    return true;
  }
}
