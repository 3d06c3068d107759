import { AppError } from '@caravel/errors';
import type { ExitStatus } from '../loop/exit-status.js';
import type { ModelStats } from '../loop/limit-guard.js';
import type { OutputFailure } from '../loop/action-validator.js';
import type { Traj, TrajHistoryItem, TrajInfo, TrajModelStats, TrajStep } from './traj.schema.js';

/** One event of a run, in the order it happened; a {@link TrajectoryBuilder} folds them into a `.traj`. */
export type StepRecord =
  /** A message that opens the conversation (system prompt, demonstration, instance). */
  | { kind: 'message'; item: TrajHistoryItem }
  /** The model answered; `action` is the parsed command (empty when parsing failed). */
  | {
      kind: 'model_response';
      query: TrajHistoryItem[];
      response: string;
      thought: string;
      action: string;
    }
  /** The answer's tool calls (function calling). */
  | { kind: 'tool_call'; toolCalls: Record<string, unknown>[]; toolCallIds: string[] }
  /** The answer could not be used and the model was asked again. */
  | {
      kind: 'requery';
      /** Why the answer was refused; events carry only the kind and message. */
      failure: OutputFailure | { kind: string; message: string };
      message: string | null;
    }
  /** The command's raw output, and the shaped text the model was shown (defaults to the raw output). */
  | { kind: 'observation'; observation: string; shaped?: string; executionTime: number }
  | { kind: 'state'; state: Record<string, unknown> }
  /** The run's cumulative model statistics so far. */
  | { kind: 'cost'; stats: ModelStats }
  /**
   * The run ended. `observation` (e.g. "Exited (autosubmitted)") completes a step still waiting
   * for its observation, or else becomes a closing step of its own; a run that ended with its
   * last step (the submission) leaves it out.
   */
  | { kind: 'exit'; exitStatus: ExitStatus; submission: string | null; observation?: string };

/** What a builder stamps on every `.traj` it writes. */
export interface TrajectoryBuilderOptions {
  environment: string;
  /** The run's configuration, serialised as SWE-agent does (`null` when not replayable). */
  replayConfig: string | null;
  /** The agent name on history items (SWE-agent's batch mode uses the instance id). */
  agent: string;
  /** Extra `info` fields (versions, hashes). */
  info?: Record<string, unknown>;
}

interface PendingStep {
  step: TrajStep;
  toolCalls: Record<string, unknown>[] | null;
  toolCallIds: string[] | null;
  shaped: string | null;
  observed: boolean;
}

function toTrajStats(stats: ModelStats): TrajModelStats {
  return {
    instance_cost: stats.instanceCost,
    tokens_sent: stats.tokensSent,
    tokens_received: stats.tokensReceived,
    api_calls: stats.apiCalls,
  };
}

/** The step SWE-agent appends when a run ends between steps (its autosubmission). */
function closingStep(observation: string): TrajStep {
  return {
    action: '',
    observation,
    response: '',
    thought: '',
    execution_time: 0,
    state: {},
    query: [],
    extra_info: {},
  };
}

/**
 * Folds a run's {@link StepRecord}s into a SWE-agent `.traj`. Accepted steps go to both the
 * trajectory and the history (an assistant item and an observation item); failed requery
 * attempts go to the trajectory only, with the failure in `extra_info.requery`. Records that
 * arrive out of order raise an error naming the record's position.
 */
export class TrajectoryBuilder {
  private readonly trajectory: TrajStep[] = [];
  private readonly history: TrajHistoryItem[] = [];
  private pending: PendingStep | null = null;
  private stats: TrajModelStats = {
    instance_cost: 0,
    tokens_sent: 0,
    tokens_received: 0,
    api_calls: 0,
  };
  private exit: { exitStatus: ExitStatus; submission: string | null } | null = null;
  private count = 0;

  constructor(private readonly options: TrajectoryBuilderOptions) {}

  /** Applies one record. */
  add(record: StepRecord): this {
    this.count += 1;
    if (this.exit !== null) this.fail(record, 'the run has already ended');
    switch (record.kind) {
      case 'message':
        if (this.pending !== null || this.trajectory.length > 0)
          this.fail(record, 'opening messages come before the first step');
        this.history.push(record.item);
        break;
      case 'model_response':
        this.commitPending();
        this.pending = this.open(record);
        break;
      case 'tool_call':
        Object.assign(this.requirePending(record, false), {
          toolCalls: record.toolCalls,
          toolCallIds: record.toolCallIds,
        });
        break;
      case 'requery':
        this.rejectPending(record);
        break;
      case 'observation':
        this.observe(record);
        break;
      case 'state':
        this.requirePending(record, true).step.state = record.state;
        break;
      case 'cost':
        this.stats = toTrajStats(record.stats);
        break;
      case 'exit':
        this.conclude(record);
        break;
    }
    return this;
  }

  /** Applies records in order. */
  addAll(records: Iterable<StepRecord>): this {
    for (const record of records) this.add(record);
    return this;
  }

  /** The `.traj` so far; callable after every step. A step still waiting for its observation is left out. */
  build(): Traj {
    const done = this.pending?.observed === true ? [this.pending] : [];
    const info: TrajInfo = {
      ...this.options.info,
      submission: this.exit?.submission ?? null,
      exit_status: this.exit?.exitStatus ?? null,
      model_stats: { ...this.stats },
    };
    return structuredClone({
      trajectory: [...this.trajectory, ...done.map((p) => p.step)],
      history: [...this.history, ...done.flatMap((p) => this.historyItems(p))],
      info,
      replay_config: this.options.replayConfig,
      environment: this.options.environment,
    });
  }

  private open(record: Extract<StepRecord, { kind: 'model_response' }>): PendingStep {
    const step: TrajStep = {
      action: record.action,
      observation: '',
      response: record.response,
      // A viewer shows the raw answer when nothing could be parsed from it.
      thought: record.thought === '' && record.action === '' ? record.response : record.thought,
      execution_time: 0,
      state: {},
      query: structuredClone(record.query),
      extra_info: {},
    };
    return { step, toolCalls: null, toolCallIds: null, shaped: null, observed: false };
  }

  private observe(record: Extract<StepRecord, { kind: 'observation' }>): void {
    const pending = this.requirePending(record, false);
    pending.step.observation = record.observation;
    pending.step.execution_time = record.executionTime;
    pending.shaped = record.shaped ?? record.observation;
    pending.observed = true;
  }

  private rejectPending(record: Extract<StepRecord, { kind: 'requery' }>): void {
    const pending = this.requirePending(record, false);
    pending.step.extra_info = { requery: { failure: record.failure, message: record.message } };
    this.trajectory.push(pending.step);
    this.pending = null;
  }

  private conclude(record: Extract<StepRecord, { kind: 'exit' }>): void {
    const pending = this.pending;
    if (pending !== null && !pending.observed) {
      // The run ended inside this step (a limit, a dead sandbox): the exit is its observation.
      pending.step.observation = record.observation ?? '';
      pending.shaped = record.observation ?? '';
      pending.observed = true;
      this.commitPending();
    } else {
      this.commitPending();
      if (record.observation !== undefined) this.trajectory.push(closingStep(record.observation));
    }
    this.exit = { exitStatus: record.exitStatus, submission: record.submission };
  }

  private commitPending(): void {
    const pending = this.pending;
    if (pending === null) return;
    if (!pending.observed) {
      throw new AppError(
        'BAD_REQUEST',
        `Trajectory record #${this.count}: the previous model response has no observation or requery`,
      );
    }
    this.trajectory.push(pending.step);
    this.history.push(...this.historyItems(pending));
    this.pending = null;
  }

  private historyItems(pending: PendingStep): TrajHistoryItem[] {
    const { step, toolCalls, toolCallIds } = pending;
    const assistant: TrajHistoryItem = {
      role: 'assistant',
      content: step.response,
      thought: step.thought,
      action: step.action,
      agent: this.options.agent,
      message_type: 'action',
      ...(toolCalls === null ? {} : { tool_calls: toolCalls }),
    };
    const observation: TrajHistoryItem = {
      role: toolCallIds === null ? 'user' : 'tool',
      content: pending.shaped ?? step.observation,
      agent: this.options.agent,
      message_type: 'observation',
      ...(toolCallIds === null ? {} : { tool_call_ids: toolCallIds }),
    };
    return [assistant, observation];
  }

  private requirePending(record: StepRecord, observed: boolean): PendingStep {
    const pending = this.pending;
    if (pending === null) this.fail(record, 'no model response precedes it');
    if (pending.observed !== observed) {
      this.fail(
        record,
        observed ? 'the step has no observation yet' : 'the step already has its observation',
      );
    }
    return pending;
  }

  private fail(record: StepRecord, why: string): never {
    throw new AppError(
      'BAD_REQUEST',
      `Trajectory record #${this.count} (${record.kind}) is out of order: ${why}`,
      {
        details: { position: this.count, kind: record.kind },
      },
    );
  }
}

/** Builds a `.traj` from a complete sequence of records. */
export function buildTrajectory(
  records: Iterable<StepRecord>,
  options: TrajectoryBuilderOptions,
): Traj {
  return new TrajectoryBuilder(options).addAll(records).build();
}
