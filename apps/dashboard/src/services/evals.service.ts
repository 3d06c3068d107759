import {
  EvalProposalRepository,
  EvalRunRepository,
  type EvalAttemptRow,
  type EvalProposalRow,
  type EvalProposalStatus,
  type EvalRunSummaryRow,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import { proportion } from '@caravel/evals';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Caller } from '../auth/session.types.js';

/** A recorded eval run with its resolve rate (resolved attempts over attempts, 95% interval). */
export type EvalRunView = EvalRunSummaryRow & {
  resolve: { rate: number | null; low: number; high: number };
};

/** One task of a run: its attempts, how many resolved it, their cost and calls, how they ended. */
export interface EvalTaskView {
  taskId: string;
  attempts: number;
  resolved: number;
  costUsd: number;
  modelCalls: number;
  exitStatuses: string[];
}

export type EvalRunDetail = EvalRunView & { taskResults: EvalTaskView[] };

/** A configuration change to propose: it waits for `caravel eval gate --proposal ID`. */
export interface EvalProposalInput {
  suite: string;
  config: string;
  model: string;
  settings: Record<string, string>;
  note?: string | undefined;
}

function viewOf(run: EvalRunSummaryRow): EvalRunView {
  const { rate, low, high } = proportion(run.resolvedAttempts, run.attempts);
  return { ...run, resolve: { rate: run.attempts === 0 ? null : rate, low, high } };
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
  ) {}

  async listRuns(query: { suite?: string | undefined; limit: number }): Promise<EvalRunView[]> {
    const rows = await this.runs.list({
      limit: query.limit,
      ...(query.suite ? { suite: query.suite } : {}),
    });
    return rows.map(viewOf);
  }

  /** One run and its tasks; NOT_FOUND when there is no such run. */
  async run(id: string): Promise<EvalRunDetail> {
    const run = await this.runs.find(id);
    if (!run) throw new AppError('NOT_FOUND', `no eval run ${id}`);
    const taskResults = tasksOf(await this.runs.attemptsOf(id));
    const sum = (field: 'attempts' | 'resolved' | 'costUsd') =>
      taskResults.reduce((total, task) => total + task[field], 0);
    const summary = {
      ...run,
      tasks: taskResults.length,
      attempts: sum('attempts'),
      resolvedAttempts: sum('resolved'),
      costUsd: sum('costUsd'),
    };
    return { ...viewOf(summary), taskResults };
  }

  listProposals(query: {
    suite?: string | undefined;
    status?: EvalProposalStatus | undefined;
    limit: number;
  }): Promise<EvalProposalRow[]> {
    return this.proposals.list({
      limit: query.limit,
      ...(query.suite ? { suite: query.suite } : {}),
      ...(query.status ? { status: query.status } : {}),
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
