import { swegenError } from '../errors/swegen-errors.js';
import { farmStateSchema, type FarmLastRun, type FarmStateJson } from './farm-state.schema.js';

/** Failure categories with their own set in the state file; anything else is `other`. */
export const FAILURE_BUCKETS = {
  trivial: 'trivial_prs',
  no_issue: 'no_issue_prs',
  no_tests: 'no_tests_prs',
  validation_failed: 'validation_failed_prs',
  already_exists: 'already_exists_prs',
  rate_limit: 'rate_limit_prs',
  quota_exceeded: 'quota_exceeded_prs',
  timeout: 'timeout_prs',
  git_error: 'git_error_prs',
} as const;

/** A failure category a processed PR can end in. */
export type FailureCategory = keyof typeof FAILURE_BUCKETS | 'other';

type Bucket = (typeof FAILURE_BUCKETS)[keyof typeof FAILURE_BUCKETS];
const BUCKETS = Object.values(FAILURE_BUCKETS);

/** The outcome of one processed PR. */
export type PrOutcome =
  | { readonly kind: 'success'; readonly taskId: string; readonly prUrl?: string }
  | { readonly kind: 'failure'; readonly category: FailureCategory; readonly message: string };

/** The resume cursor of a created-descending stream. */
export interface FarmCursor {
  readonly prNumber: number | null;
  readonly createdAt: string | null;
}

/**
 * The farm state of one source repository (the reference's `StreamState`). A PR has exactly one
 * outcome; the counters are derived from the recorded sets on every read, never incremented, so a
 * PR that moves between categories or a merge of two states cannot make them drift.
 * `publish_failed_prs` and `claude_rate_limited_prs` hold PRs still pending: never processed.
 */
export class FarmState {
  readonly processed = new Set<number>();
  readonly successful = new Map<number, string>();
  readonly taskPrUrls = new Map<number, string>();
  readonly buckets = new Map<Bucket, Set<number>>(BUCKETS.map((b) => [b, new Set<number>()]));
  readonly otherFailed = new Map<number, string>();
  readonly publishFailed = new Set<number>();
  readonly rateLimited = new Set<number>();
  /** Skip-list PRs: in memory only, never written. */
  readonly skipList = new Set<number>();
  totalFetched = 0;
  cursor: FarmCursor = { prNumber: null, createdAt: null };
  lastUpdated: string;
  lastRun: FarmLastRun | null = null;

  constructor(
    readonly repo: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.lastUpdated = now().toISOString();
  }

  get successfulCount(): number {
    return this.successful.size;
  }

  get failedCount(): number {
    const failed = new Set<number>(this.otherFailed.keys());
    for (const set of this.buckets.values()) for (const pr of set) failed.add(pr);
    return failed.size;
  }

  get totalProcessed(): number {
    return this.processed.size;
  }

  /** PRs that still await a publish or a model-limited retry (exempt from the cursor skip). */
  isPending(pr: number): boolean {
    return this.publishFailed.has(pr) || this.rateLimited.has(pr);
  }

  /** Records a processed PR's one outcome and moves the cursor to it. */
  markProcessed(pr: number, createdAt: string, outcome: PrOutcome): void {
    this.clearOutcome(pr, outcome.kind === 'success');
    this.processed.add(pr);
    if (outcome.kind === 'success') {
      this.successful.set(pr, outcome.taskId);
      if (outcome.prUrl) this.taskPrUrls.set(pr, outcome.prUrl);
    } else if (outcome.category === 'other') {
      this.otherFailed.set(pr, outcome.message.slice(0, 500));
    } else {
      this.buckets.get(FAILURE_BUCKETS[outcome.category])!.add(pr);
    }
    this.cursor = { prNumber: pr, createdAt };
    this.touch();
  }

  /** A validated task that did not reach the dataset repository: pending, cursor unchanged. */
  markPublishFailed(pr: number): void {
    this.markPending(pr, this.publishFailed);
  }

  /** The model's rate or usage limit stopped this PR: pending, cursor unchanged. */
  markRateLimited(pr: number): void {
    this.markPending(pr, this.rateLimited);
  }

  private markPending(pr: number, into: Set<number>): void {
    this.clearOutcome(pr, false);
    this.processed.delete(pr);
    into.add(pr);
    this.touch();
  }

  private clearOutcome(pr: number, keepSuccess: boolean): void {
    if (!keepSuccess) {
      this.successful.delete(pr);
      this.taskPrUrls.delete(pr);
    }
    for (const set of this.buckets.values()) set.delete(pr);
    this.otherFailed.delete(pr);
    this.publishFailed.delete(pr);
    this.rateLimited.delete(pr);
  }

  /** Sets `last_updated` to now. */
  touch(): void {
    this.lastUpdated = this.now().toISOString();
  }

  /**
   * Merges `other` into this state, which must be the fresher one (the receiver): sets are
   * unioned, so no PR is ever lost; the receiver only wins per-PR collisions; the newer cursor
   * wins (it skips less, and `processed_prs` catches the rest).
   */
  mergeFrom(other: FarmState): void {
    if (other.repo.toLowerCase() !== this.repo.toLowerCase())
      throw swegenError(
        'invalid_input',
        `cannot merge farm state of ${other.repo} into ${this.repo}`,
      );
    const ownFailed = new Set<number>(this.otherFailed.keys());
    for (const set of this.buckets.values()) for (const pr of set) ownFailed.add(pr);
    const ownVerdicts = new Set<number>([...this.successful.keys(), ...ownFailed]);
    for (const pr of other.processed) this.processed.add(pr);
    for (const pr of other.skipList) this.skipList.add(pr);
    for (const [bucket, set] of other.buckets)
      for (const pr of set) if (!ownVerdicts.has(pr)) this.buckets.get(bucket)!.add(pr);
    for (const pr of other.publishFailed) if (!ownVerdicts.has(pr)) this.publishFailed.add(pr);
    for (const pr of other.rateLimited) if (!ownVerdicts.has(pr)) this.rateLimited.add(pr);
    overlay(this.successful, other.successful, (pr) => !ownFailed.has(pr));
    overlay(this.taskPrUrls, other.taskPrUrls, () => true);
    overlay(this.otherFailed, other.otherFailed, (pr) => !ownVerdicts.has(pr));
    for (const pr of this.successful.keys()) {
      for (const set of this.buckets.values()) set.delete(pr);
      this.otherFailed.delete(pr);
      this.publishFailed.delete(pr);
      this.rateLimited.delete(pr);
    }
    for (const pr of [...this.publishFailed, ...this.rateLimited]) this.processed.delete(pr);
    this.totalFetched = Math.max(this.totalFetched, other.totalFetched);
    if (runTime(other.lastRun) > runTime(this.lastRun)) this.lastRun = other.lastRun;
    if ((other.cursor.createdAt ?? '') > (this.cursor.createdAt ?? '')) this.cursor = other.cursor;
    this.touch();
  }

  /** The state file's JSON (the reference's schema; counters derived). */
  toJSON(): FarmStateJson {
    const sorted = (set: Iterable<number>): number[] => [...set].sort((a, b) => a - b);
    const record = (map: Map<number, string>): Record<string, string> =>
      Object.fromEntries(sorted(map.keys()).map((pr) => [String(pr), map.get(pr)!]));
    const buckets = Object.fromEntries(
      BUCKETS.map((b) => [b, sorted(this.buckets.get(b)!)]),
    ) as Record<Bucket, number[]>;
    return {
      repo: this.repo,
      processed_prs: sorted(this.processed),
      total_fetched: this.totalFetched,
      total_processed: this.totalProcessed,
      successful: this.successfulCount,
      failed: this.failedCount,
      last_pr_number: this.cursor.prNumber,
      last_created_at: this.cursor.createdAt,
      last_updated: this.lastUpdated,
      last_run: this.lastRun,
      successful_prs: record(this.successful),
      task_pr_urls: record(this.taskPrUrls),
      publish_failed_prs: sorted(this.publishFailed),
      claude_rate_limited_prs: sorted(this.rateLimited),
      ...buckets,
      other_failed_prs: record(this.otherFailed),
    };
  }

  /** Reads a state file's JSON; pending PRs are never processed, counters are re-derived. */
  static fromJSON(json: unknown, now?: () => Date): FarmState {
    const parsed = farmStateSchema.safeParse(json);
    if (!parsed.success)
      throw swegenError('invalid_input', `malformed farm state: ${parsed.error.message}`);
    const data = parsed.data;
    const state = new FarmState(data.repo, now);
    data.processed_prs.forEach((pr) => state.processed.add(pr));
    for (const [pr, id] of Object.entries(data.successful_prs)) state.successful.set(+pr, id);
    for (const [pr, url] of Object.entries(data.task_pr_urls)) state.taskPrUrls.set(+pr, url);
    for (const [pr, m] of Object.entries(data.other_failed_prs)) state.otherFailed.set(+pr, m);
    for (const bucket of BUCKETS) data[bucket].forEach((pr) => state.buckets.get(bucket)!.add(pr));
    data.publish_failed_prs.forEach((pr) => state.publishFailed.add(pr));
    data.claude_rate_limited_prs.forEach((pr) => state.rateLimited.add(pr));
    for (const pr of [...state.publishFailed, ...state.rateLimited]) state.processed.delete(pr);
    state.totalFetched = data.total_fetched;
    state.cursor = { prNumber: data.last_pr_number, createdAt: data.last_created_at };
    state.lastUpdated = data.last_updated;
    state.lastRun = data.last_run;
    return state;
  }
}

function overlay(
  into: Map<number, string>,
  from: Map<number, string>,
  take: (pr: number) => boolean,
): void {
  for (const [pr, value] of from) if (!into.has(pr) && take(pr)) into.set(pr, value);
}

function runTime(run: FarmLastRun | null): string {
  return run ? (run.ended_at ?? run.started_at) : '';
}
