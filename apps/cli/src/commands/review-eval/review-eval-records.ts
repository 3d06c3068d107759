import type { EvalReviewCaseRepository, EvalReviewCaseRow, EvalRunRepository } from '@caravel/db';
import {
  reviewEvalCaseSchema,
  type ReviewEvalCase,
  type ReviewRunRecord,
  type ReviewSeverity,
} from '@caravel/evals';

/** Where a reviewer eval is recorded: the runs (kind `review`) and their cases. */
export interface ReviewRecordStores {
  readonly runs: EvalRunRepository;
  readonly reviewCases: EvalReviewCaseRepository;
}

/** What a reviewer eval run is recorded as. */
export interface ReviewRunIdentity {
  readonly runId: string;
  readonly set: string;
  readonly config: string;
  readonly model: string;
  readonly judge: string | null;
  readonly tolerance: number;
  readonly minSeverity: ReviewSeverity;
  readonly outDir: string;
  readonly createdAt: Date;
  /** The scheduled suite and night that started it. */
  readonly schedule?: { id: string; slot: Date };
}

/** A case as its row: the counts and scores (zero when it could not be reviewed), the record. */
export function reviewCaseRow(record: ReviewEvalCase): EvalReviewCaseRow {
  const score = record.score;
  return {
    caseId: record.id,
    expected: score?.expected ?? 0,
    found: score?.found ?? 0,
    matched: score?.matched ?? 0,
    precision: score?.precision ?? null,
    recall: score?.recall ?? null,
    f1: score?.f1 ?? null,
    modelCalls: record.modelCalls,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    costUsd: record.costUsd,
    wallMs: record.wallMs,
    error: record.error ?? null,
    detail: record,
  };
}

/** A recorded reviewer run as `compareReviewRuns` reads it: its scored cases. */
export function reviewRunOfRecords(
  run: { id: string; suite: string; config: string; model: string },
  cases: readonly EvalReviewCaseRow[],
): ReviewRunRecord {
  return {
    runId: run.id,
    set: run.suite,
    config: run.config,
    model: run.model,
    cases: cases
      .filter((c) => c.error === null)
      .map((c) => ({ id: c.caseId, expected: c.expected, found: c.found, matched: c.matched })),
  };
}

/**
 * Records one `review-eval` as it goes: the run when it starts (a resumed run finds its row and
 * the cases it reviewed already), each case when it is scored, every case again at the end (each
 * kept once), so a kill between two cases loses none and reviews none twice.
 */
export class ReviewRunRecorder {
  private pending: Promise<void> = Promise.resolve();

  private constructor(
    private readonly stores: ReviewRecordStores,
    private readonly runId: string,
    /** Cases the run had reviewed before this process (a resumed run): not reviewed again. */
    readonly reviewed: ReadonlyMap<string, ReviewEvalCase>,
    private readonly warn: (line: string) => void,
  ) {}

  static async start(
    stores: ReviewRecordStores,
    run: ReviewRunIdentity,
    warn: (line: string) => void,
  ): Promise<ReviewRunRecorder> {
    await stores.runs.start({
      id: run.runId,
      kind: 'review',
      suite: run.set,
      config: run.config,
      model: run.model,
      settings: {
        ...(run.judge ? { judge: run.judge } : {}),
        tolerance: String(run.tolerance),
        minSeverity: run.minSeverity,
      },
      attemptsPerTask: 1,
      outDir: run.outDir,
      createdAt: run.createdAt,
      schedule: run.schedule ?? null,
    });
    const reviewed = new Map<string, ReviewEvalCase>();
    for (const row of await stores.reviewCases.casesOf(run.runId)) {
      const parsed = reviewEvalCaseSchema.safeParse(row.detail);
      // A failed case is reviewed again; a row that is not a case record is ignored.
      if (parsed.success && row.error === null) reviewed.set(row.caseId, parsed.data);
    }
    return new ReviewRunRecorder(stores, run.runId, reviewed, warn);
  }

  /** Records a scored case after those before it; a failure is a warning (see `finish`). */
  record(record: ReviewEvalCase): void {
    this.pending = this.pending
      .then(() => this.stores.reviewCases.record(this.runId, [reviewCaseRow(record)]))
      .then(
        () => undefined,
        (error: unknown) =>
          this.warn(
            `warning: case ${record.id} not recorded yet (${(error as Error).message}); it is at the end`,
          ),
      );
  }

  settle(): Promise<void> {
    return this.pending;
  }

  /** Records every case not recorded yet and, unless stopped, the run as finished. */
  async finish(cases: readonly ReviewEvalCase[], stopped: boolean): Promise<void> {
    await this.pending;
    await this.stores.reviewCases.record(this.runId, cases.map(reviewCaseRow));
    if (!stopped) await this.stores.runs.finish(this.runId);
  }
}
