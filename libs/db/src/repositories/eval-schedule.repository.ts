import type { Selectable } from 'kysely';
import type { EvalSchedule } from '../generated/types.js';
import { toJson } from '../connection/json.js';
import type { Executor } from './executor.js';
import { runOf, type EvalRunRow } from './eval-run.repository.js';
import { rowOf, type RowOf } from './row-of.js';
import type { EvalRunKind, EvalScheduleState } from './states.js';

/** A suite run every night (`eval_schedules`), its settings parsed. */
export type EvalScheduleRow = Omit<RowOf<EvalSchedule>, 'settings'> & {
  settings: Record<string, string>;
};

/** A schedule to register. */
export interface NewEvalSchedule {
  id: string;
  name: string;
  kind: EvalRunKind;
  source: string;
  config: string;
  model: string;
  settings: Readonly<Record<string, string>>;
  attempts: number;
  hour: number;
  createdBy: string;
  createdAt: Date;
}

/** What an admin may change of a schedule. */
export interface EvalScheduleChange {
  state?: EvalScheduleState;
  hour?: number;
  attempts?: number;
  model?: string;
  settings?: Readonly<Record<string, string>>;
}

/** Scheduled suites: registered by admins, started each night by the embedded host's sweep. */
export class EvalScheduleRepository {
  constructor(private readonly db: Executor) {}

  /** Registers a schedule; null when one of that name exists already. */
  async register(schedule: NewEvalSchedule): Promise<EvalScheduleRow | null> {
    const row = await this.db
      .insertInto('eval_schedules')
      .values({
        id: schedule.id,
        name: schedule.name,
        kind: schedule.kind,
        source: schedule.source,
        config: schedule.config,
        model: schedule.model,
        settings: toJson(schedule.settings),
        attempts: schedule.attempts,
        hour: schedule.hour,
        created_by: schedule.createdBy,
        created_at: schedule.createdAt,
        updated_at: schedule.createdAt,
      })
      .onConflict((oc) => oc.column('name').doNothing())
      .returningAll()
      .executeTakeFirst();
    return row ? scheduleOf(row) : null;
  }

  /** Changes a schedule; null when there is none of that id. */
  async change(id: string, change: EvalScheduleChange, at: Date): Promise<EvalScheduleRow | null> {
    const row = await this.db
      .updateTable('eval_schedules')
      .set({
        ...(change.state !== undefined ? { state: change.state } : {}),
        ...(change.hour !== undefined ? { hour: change.hour } : {}),
        ...(change.attempts !== undefined ? { attempts: change.attempts } : {}),
        ...(change.model !== undefined ? { model: change.model } : {}),
        ...(change.settings !== undefined ? { settings: toJson(change.settings) } : {}),
        updated_at: at,
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row ? scheduleOf(row) : null;
  }

  async find(id: string): Promise<EvalScheduleRow | null> {
    const row = await this.db
      .selectFrom('eval_schedules')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? scheduleOf(row) : null;
  }

  /** Every schedule by name (the active ones only with `active`). */
  async list(filter: { active?: boolean } = {}): Promise<EvalScheduleRow[]> {
    let select = this.db.selectFrom('eval_schedules').selectAll().orderBy('name');
    if (filter.active) select = select.where('state', '=', 'active');
    return (await select.execute()).map(scheduleOf);
  }

  /** The run the schedule started for a night, or null (none yet). */
  async runFor(id: string, slot: Date): Promise<EvalRunRow | null> {
    const row = await this.db
      .selectFrom('eval_runs')
      .selectAll()
      .where('schedule_id', '=', id)
      .where('schedule_slot', '=', slot)
      .executeTakeFirst();
    return row ? runOf(row) : null;
  }

  /** Records that the night's run failed: it is not tried again before the next night. */
  async failed(id: string, slot: Date, error: string): Promise<void> {
    await this.db
      .updateTable('eval_schedules')
      .set({ failed_slot: slot, last_error: error.slice(0, 2000) })
      .where('id', '=', id)
      .execute();
  }
}

function scheduleOf(row: Selectable<EvalSchedule>): EvalScheduleRow {
  return { ...rowOf<EvalSchedule>(row), settings: row.settings as Record<string, string> };
}
