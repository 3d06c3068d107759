import { timeOr, type Executor } from './executor.js';
import type { RunNoticeKind } from './states.js';

/** Notices sent about runs (`run_notices`): each kind at most once per run. */
export class RunNoticeRepository {
  constructor(private readonly db: Executor) {}

  /** Whether that notice was sent for the run. */
  async sent(runId: string, kind: RunNoticeKind, executor: Executor = this.db): Promise<boolean> {
    const row = await executor
      .selectFrom('run_notices')
      .select('run_id')
      .where('run_id', '=', runId)
      .where('kind', '=', kind)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Records a sent notice; false when it was recorded before. */
  async record(
    runId: string,
    kind: RunNoticeKind,
    at?: Date,
    executor: Executor = this.db,
  ): Promise<boolean> {
    const inserted = await executor
      .insertInto('run_notices')
      .values({ run_id: runId, kind, sent_at: timeOr(at) })
      .onConflict((conflict) => conflict.columns(['run_id', 'kind']).doNothing())
      .returning('run_id')
      .executeTakeFirst();
    return inserted !== undefined;
  }
}
