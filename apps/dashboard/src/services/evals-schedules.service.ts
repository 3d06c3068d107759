import {
  EvalReviewCaseRepository,
  EvalRunRepository,
  EvalScheduleRepository,
  type EvalRunKind,
  type EvalScheduleChange,
  type EvalScheduleRow,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Caller } from '../auth/session.types.js';
import { runViews, type EvalRunView } from './evals-views.js';

/** A suite to run each night, as an admin registers it. */
export interface EvalScheduleInput {
  name: string;
  kind: EvalRunKind;
  source: string;
  config: string;
  model: string;
  settings: Record<string, string>;
  attempts: number;
  hour: number;
}

/** A scheduled suite and its runs, the newest night first. */
export interface EvalScheduleHistory {
  schedule: EvalScheduleRow;
  runs: EvalRunView[];
}

/** Scheduled suites on the dashboard: registered and changed by admins, their history for all. */
@Injectable()
export class EvalSchedulesService {
  constructor(
    @Inject(EvalScheduleRepository) private readonly schedules: EvalScheduleRepository,
    @Inject(EvalRunRepository) private readonly runs: EvalRunRepository,
    @Inject(EvalReviewCaseRepository) private readonly reviewCases: EvalReviewCaseRepository,
  ) {}

  list(): Promise<EvalScheduleRow[]> {
    return this.schedules.list();
  }

  /** Registers a schedule by the caller; CONFLICT when its name is taken. */
  async register(caller: Caller, input: EvalScheduleInput): Promise<EvalScheduleRow> {
    const registered = await this.schedules.register({
      id: randomUUID(),
      ...input,
      createdBy: caller.kind === 'person' ? caller.session.login : 'machine',
      createdAt: new Date(),
    });
    if (!registered)
      throw new AppError('CONFLICT', `a scheduled suite named '${input.name}' exists already`);
    return registered;
  }

  /** Changes a schedule; NOT_FOUND when there is none, BAD_REQUEST for attempts on a review set. */
  async change(id: string, change: EvalScheduleChange): Promise<EvalScheduleRow> {
    const schedule = await this.schedules.find(id);
    if (!schedule) throw new AppError('NOT_FOUND', `no scheduled suite ${id}`);
    if (schedule.kind === 'review' && change.attempts !== undefined && change.attempts !== 1)
      throw new AppError('BAD_REQUEST', 'a review set is reviewed once a night (attempts 1)');
    const changed = await this.schedules.change(id, change, new Date());
    if (!changed) throw new AppError('NOT_FOUND', `no scheduled suite ${id}`);
    return changed;
  }

  /** The schedule's runs over time with their resolve rate or F1 and intervals. */
  async history(id: string, limit: number): Promise<EvalScheduleHistory> {
    const schedule = await this.schedules.find(id);
    if (!schedule) throw new AppError('NOT_FOUND', `no scheduled suite ${id}`);
    const rows = await this.runs.list({ scheduleId: id, limit });
    return { schedule, runs: await runViews(rows, this.reviewCases) };
  }
}
