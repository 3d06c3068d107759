/** A tool call a canned response makes. `id` defaults to a deterministic one. */
export interface CannedToolCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly id?: string;
}

/** A simulated provider failure: an HTTP status (429 with retry-after, 5xx, 400...) or a timeout. */
export interface CannedError {
  readonly status?: number;
  readonly timeout?: boolean;
  readonly message: string;
  readonly retryAfterSeconds?: number;
}

/** One model answer of a script or a replay. `origin` says where it was written ("file:line:col"). */
export interface CannedResponse {
  readonly origin: string;
  readonly content?: string;
  readonly thinking?: string;
  readonly toolCalls?: readonly CannedToolCall[];
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  readonly costUsd?: number;
  readonly error?: CannedError;
}
