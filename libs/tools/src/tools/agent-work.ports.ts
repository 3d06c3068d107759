import type { DataOf, RunTodosV1 } from '@caravel/contracts';

/** One item of the agent's todo list. */
export type TodoItem = DataOf<typeof RunTodosV1>['todos'][number];

/** Where the run's todo list goes (the runner publishes it as `evt.run.todos`). */
export interface TodoListPort {
  /** Publishes the whole list, replacing the previous one; `callId` is the `write_todos` call. */
  publish(todos: readonly TodoItem[], callId: string | undefined): Promise<void>;
}

/** A subtask handed to a subagent. */
export interface SubagentTask {
  /** A few words naming the subtask (shown in the thread view). */
  description: string;
  /** Everything the subagent needs: it sees nothing of the parent's conversation. */
  prompt: string;
  /** Caravel's id of the parent's `task` call: the subagent's run id derives from it. */
  callId: string | undefined;
}

/** What a subagent did. */
export interface SubagentOutcome {
  /** The subagent's own run id (its steps are recorded under it). */
  subagentRunId: string;
  /** The model it ran on (`provider:model`). */
  model: string;
  /** `submitted` when it answered; else the limit that stopped it (`exit_cost`, …). */
  exitStatus: string;
  /** Its final answer, or why it stopped. */
  answer: string;
  modelCalls: number;
  /** What its model calls cost; the run's budget counts it. */
  costUsd: number;
}

/** Runs subagents in the run's sandbox (the runner builds each one). */
export interface SubagentPort {
  run(task: SubagentTask): Promise<SubagentOutcome>;
}
