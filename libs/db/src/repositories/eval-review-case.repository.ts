import type { Selectable } from 'kysely';
import type { EvalReviewCase } from '../generated/types.js';
import { toJson } from '../connection/json.js';
import type { Executor } from './executor.js';
import type { RowOf } from './row-of.js';

/** One case of a reviewer eval run (`eval_review_cases`): its counts, scores and whole record. */
export type EvalReviewCaseRow = Omit<RowOf<EvalReviewCase>, 'runId' | 'recordedAt'>;

/**
 * The cases of reviewer eval runs (runs of kind `review` in `eval_runs`): each recorded once, so
 * a resumed run records only the cases it had not.
 */
export class EvalReviewCaseRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Records the cases the run does not hold yet, or holds as failed; returns how many were
   * written. A scored case is never written twice.
   */
  async record(runId: string, cases: readonly EvalReviewCaseRow[]): Promise<number> {
    if (cases.length === 0) return 0;
    const inserted = await this.db
      .insertInto('eval_review_cases')
      .values(
        cases.map((c) => ({
          run_id: runId,
          case_id: c.caseId,
          expected: c.expected,
          found: c.found,
          matched: c.matched,
          precision: c.precision,
          recall: c.recall,
          f1: c.f1,
          model_calls: c.modelCalls,
          input_tokens: c.inputTokens,
          output_tokens: c.outputTokens,
          cost_usd: c.costUsd,
          wall_ms: c.wallMs,
          error: c.error,
          detail: toJson(c.detail),
        })),
      )
      // A case that failed may be reviewed again (a resumed run): its new record replaces it.
      .onConflict((oc) =>
        oc
          .columns(['run_id', 'case_id'])
          .doUpdateSet((eb) => ({
            expected: eb.ref('excluded.expected'),
            found: eb.ref('excluded.found'),
            matched: eb.ref('excluded.matched'),
            precision: eb.ref('excluded.precision'),
            recall: eb.ref('excluded.recall'),
            f1: eb.ref('excluded.f1'),
            model_calls: eb.ref('excluded.model_calls'),
            input_tokens: eb.ref('excluded.input_tokens'),
            output_tokens: eb.ref('excluded.output_tokens'),
            cost_usd: eb.ref('excluded.cost_usd'),
            wall_ms: eb.ref('excluded.wall_ms'),
            error: eb.ref('excluded.error'),
            detail: eb.ref('excluded.detail'),
          }))
          .where('eval_review_cases.error', 'is not', null),
      )
      .returning('case_id')
      .execute();
    return inserted.length;
  }

  /** The scored cases' counts of several runs (failed cases left out), by run id. */
  async countsOf(
    runIds: readonly string[],
  ): Promise<Map<string, { caseId: string; expected: number; found: number; matched: number }[]>> {
    const counts = new Map<
      string,
      { caseId: string; expected: number; found: number; matched: number }[]
    >(runIds.map((id) => [id, []]));
    if (runIds.length === 0) return counts;
    const rows = await this.db
      .selectFrom('eval_review_cases')
      .select(['run_id', 'case_id', 'expected', 'found', 'matched'])
      .where('run_id', 'in', runIds)
      .where('error', 'is', null)
      .orderBy('case_id')
      .execute();
    for (const row of rows)
      counts.get(row.run_id)?.push({
        caseId: row.case_id,
        expected: row.expected,
        found: row.found,
        matched: row.matched,
      });
    return counts;
  }

  /** The run's cases in id order. */
  async casesOf(runId: string): Promise<EvalReviewCaseRow[]> {
    const rows = await this.db
      .selectFrom('eval_review_cases')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('case_id')
      .execute();
    return rows.map(caseOf);
  }
}

function caseOf(row: Selectable<EvalReviewCase>): EvalReviewCaseRow {
  return {
    caseId: row.case_id,
    expected: row.expected,
    found: row.found,
    matched: row.matched,
    precision: row.precision,
    recall: row.recall,
    f1: row.f1,
    modelCalls: row.model_calls,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    costUsd: row.cost_usd,
    wallMs: row.wall_ms,
    error: row.error,
    detail: row.detail,
  };
}
