import {
  EvalProposalRepository,
  EvalReviewCaseRepository,
  EvalRunRepository,
  type EvalAttemptRow,
  type EvalProposalRow,
  type EvalProposalKind,
  type EvalProposalStatus,
  type EvalReviewCaseRow,
  type EvalRunKind,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Caller } from '../auth/session.types.js';
import { runViews, type EvalRunView } from './evals-views.js';

export type { EvalRunView } from './evals-views.js';

/** One task of a run: its attempts, how many resolved it, their cost and calls, how they ended. */
export interface EvalTaskView {
  taskId: string;
  attempts: number;
  resolved: number;
  costUsd: number;
  modelCalls: number;
  exitStatuses: string[];
}

/** One case of a reviewer run: its counts and scores (its whole record stays in the database). */
export type EvalReviewCaseView = Omit<EvalReviewCaseRow, 'detail'>;

/** A run with its tasks (Harbor runs) or its cases (reviewer runs); the other list is empty. */
export type EvalRunDetail = EvalRunView & {
  taskResults: EvalTaskView[];
  reviewCases: EvalReviewCaseView[];
};

/** A configuration change to propose: it waits for `caravel eval gate --proposal ID`. */
export interface EvalProposalInput {
  suite: string;
  config: string;
  model: string;
  settings: Record<string, string>;
  note?: string | undefined;
}

function tasksOf(attempts: readonly EvalAttemptRow[]): EvalTaskView[] {
  const tasks = new Map<string, EvalTaskView>();
  for (const a of attempts) {
    const task = tasks.get(a.taskId) ?? {
      taskId: a.taskId,
      attempts: 0,
      resolved: 0,
      costUsd: 0,
      modelCalls: 0,
      exitStatuses: [],
    };
    task.attempts += 1;
    task.resolved += a.resolved ? 1 : 0;
    task.costUsd += a.costUsd;
    task.modelCalls += a.modelCalls;
    task.exitStatuses.push(a.exitStatus);
    tasks.set(a.taskId, task);
  }
  return [...tasks.values()];
}

/** Private evals on the dashboard: recorded runs, and proposals with the gate's verdicts. */
@Injectable()
export class EvalsService {
  constructor(
    @Inject(EvalRunRepository) private readonly runs: EvalRunRepository,
    @Inject(EvalProposalRepository) private readonly proposals: EvalProposalRepository,
    @Inject(EvalReviewCaseRepository) private readonly reviewCases: EvalReviewCaseRepository,
  ) {}

  async listRuns(query: {
    suite?: string | undefined;
    kind?: EvalRunKind | undefined;
    limit: number;
  }): Promise<EvalRunView[]> {
    const rows = await this.runs.list({
      limit: query.limit,
      ...(query.suite ? { suite: query.suite } : {}),
      ...(query.kind ? { kind: query.kind } : {}),
    });
    return runViews(rows, this.reviewCases);
  }

  /** One run and its tasks; NOT_FOUND when there is no such run. */
  async run(id: string): Promise<EvalRunDetail> {
    const run = await this.runs.find(id);
    if (!run) throw new AppError('NOT_FOUND', `no eval run ${id}`);
    const taskResults = tasksOf(await this.runs.attemptsOf(id));
    const cases = run.kind === 'review' ? await this.reviewCases.casesOf(id) : [];
    const reviewCases = cases.map(({ detail: _detail, ...c }) => c);
    const scored = reviewCases.filter((c) => c.error === null);
    const sum = (field: 'attempts' | 'resolved' | 'costUsd') =>
      taskResults.reduce((total, task) => total + task[field], 0);
    const total = (field: 'expected' | 'found' | 'matched' | 'costUsd') =>
      scored.reduce((n, c) => n + c[field], 0);
    const summary = {
      ...run,
      tasks: taskResults.length,
      attempts: sum('attempts'),
      resolvedAttempts: sum('resolved'),
      cases: scored.length,
      expected: total('expected'),
      found: total('found'),
      matched: total('matched'),
      costUsd: sum('costUsd') + total('costUsd'),
    };
    const [view] = await runViews([summary], {
      countsOf: () => Promise.resolve(new Map([[id, scored]])),
    });
    return { ...(view as EvalRunView), taskResults, reviewCases };
  }

  listProposals(query: {
    suite?: string | undefined;
    status?: EvalProposalStatus | undefined;
    kind?: EvalProposalKind | undefined;
    limit: number;
  }): Promise<EvalProposalRow[]> {
    return this.proposals.list({
      limit: query.limit,
      ...(query.suite ? { suite: query.suite } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...(query.kind ? { kind: query.kind } : {}),
    });
  }

  /** Records a pending proposal, by the caller (a person's login, or `machine` for the token). */
  propose(caller: Caller, input: EvalProposalInput): Promise<EvalProposalRow> {
    return this.proposals.propose({
      id: randomUUID(),
      suite: input.suite,
      config: input.config,
      model: input.model,
      settings: input.settings,
      note: input.note ?? null,
      proposedBy: caller.kind === 'person' ? caller.session.login : 'machine',
      createdAt: new Date(),
    });
  }
}
