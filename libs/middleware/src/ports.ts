/** One AGENTS.md file that applies to a path, as the runner found it in the sandbox. */
export interface AgentsFile {
  /** Path of the AGENTS.md file itself. */
  path: string;
  content: string;
}

/** Finds the AGENTS.md files of a file's directory and its parents (any order). */
export interface AgentsFileFinder {
  findAgentsFiles(path: string): Promise<AgentsFile[]>;
}

/** A message that reached the thread while its run was working. */
export interface QueuedMessage {
  id: string;
  text: string;
  /** Who wrote it, as the source channel identifies them (e.g. `github:octocat`). */
  author: string;
  /** What the runner wants kept with the message (e.g. a person's command and its output). */
  metadata?: Record<string, unknown>;
}

/**
 * The thread's mid-run message queue. `drain` returns what is waiting, oldest first, and what it
 * returned before that no checkpoint holds yet (a drain is written with the model's answer, so a
 * crash or a failed call before that write hands the same messages over again). `inConversation`
 * tells which of those the conversation already holds (by queued message id): they are not
 * returned again (the run settles its claims when it ends).
 */
export interface MessageQueue {
  drain(threadId: string, inConversation: (messageId: string) => boolean): Promise<QueuedMessage[]>;
}

/** Each person's standing instructions (`save_user_instructions`), by `source:id`. */
export interface UserInstructionsLookup {
  /** The person's instructions, or null when they saved none. */
  instructionsOf(person: string): Promise<string | null>;
}

/** What the step-limit notice tells the source channel. */
export interface StepLimitNotice {
  threadId: string;
  used: number;
  limit: number;
  remaining: number;
}

/** Posts a notice to the channel the run came from (Slack thread, PR comment, ...). */
export interface StepLimitNotifier {
  notifyStepLimit(notice: StepLimitNotice): Promise<void>;
}

/** Something a middleware did that the run's event log must show. */
export type MiddlewareEvent =
  | {
      type: 'model_fallback';
      from: { modelId: string; provider: string };
      to: { modelId: string; provider: string };
      reason: string;
    }
  | { type: 'circuit_breaker_open'; consecutiveFailures: number; lastError: string }
  | { type: 'thinking_blocks_stripped'; removed: number }
  | { type: 'step_limit_notice_failed'; reason: string }
  | { type: 'agents_md_unavailable'; path: string; reason: string }
  | { type: 'message_queue_unavailable'; threadId: string; reason: string }
  | { type: 'user_instructions_unavailable'; person: string; reason: string }
  | {
      /** An answer the model had to give again; recorded in the trajectory, not the history. */
      type: 'requery';
      attempt: number;
      failure: string;
      message: string;
      reply: { content: string; toolCalls: { name: string; args: Record<string, unknown> }[] };
    }
  | {
      /** What one model call cost and the run's totals after it. */
      type: 'model_call_cost';
      costUsd: number;
      totals: { costUsd: number; tokensSent: number; tokensReceived: number; calls: number };
    }
  | { type: 'run_limit_reached'; reason: string; message: string }
  | { type: 'model_retry'; attempt: number; waitMs: number; reason: string }
  | { type: 'shell_command_blocked'; guard: string; what: string }
  | { type: 'pull_request_required'; tool: string }
  | { type: 'pull_request_policy_unmet' }
  | { type: 'tool_hidden_call_refused'; tool: string; reason: string }
  | { type: 'plan_mode_changed'; active: boolean; by: string }
  | { type: 'assistant_status_failed'; reason: string }
  | { type: 'turn_snapshot_failed'; reason: string }
  | { type: 'user_notice_failed'; reason: string }
  | {
      type: 'context_summarized';
      replacedMessages: number;
      tokensBefore: number;
      tokensAfter: number;
      summary: string;
    }
  | { type: 'context_summary_failed'; reason: string }
  | { type: 'tool_output_offloaded'; tool: string; path: string; chars: number }
  | { type: 'tool_output_offload_failed'; tool: string; reason: string };

/** Receives middleware events (the runner turns them into step events on the bus). */
export interface MiddlewareEventSink {
  emit(event: MiddlewareEvent): void;
}

/** Timers behind a port so tests fire them by hand instead of waiting. */
export interface Clock {
  /** Calls `callback` after `ms`; the returned function cancels it. */
  setTimer(ms: number, callback: () => void): () => void;
  /** Milliseconds since the epoch. */
  nowMs(): number;
}

/** Decides whether a thrown tool error means the sandbox/infrastructure is failing. */
export type InfrastructureFailureClassifier = (error: unknown) => boolean;

/** List prices of the run's model, for the budget check before each paid call. */
export interface ModelPricing {
  /** The most a call with a prompt of `inputTokens` is expected to cost, in dollars. */
  estimateCallUsd(inputTokens: number): number;
  /** What a completed call cost at list price, in dollars. */
  costUsd(usage: { inputTokens: number; outputTokens: number }): number;
}

/**
 * The source channel's "assistant is working" indicator (Slack's assistant thread status), bound
 * to the run's thread. Other channels bind a no-op.
 */
export interface AssistantStatusPort {
  /** Shows `status` (e.g. "is working…") until cleared or replaced. */
  setStatus(status: string): Promise<void>;
  /** Removes the status. */
  clearStatus(): Promise<void>;
}

/** What a run needs ready before its first model call, bound to the run's thread. */
export interface RunPreparationPort {
  /**
   * Makes sure the thread's sandbox is there and answering; rejects (never replaces it) when a
   * sandbox that may hold work cannot be reached.
   */
  ensureSandbox(): Promise<void>;
  /** Snapshots the worktree as the turn checkpoint of the user message `messageId` (idempotent). */
  snapshotTurn(messageId: string): Promise<void>;
  /** Tells the user in the channel the run came from. */
  notifyUser(text: string): Promise<void>;
}
