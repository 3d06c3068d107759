/** A tool call a fake reply makes. `id` defaults to a deterministic one per server. */
export interface FakeToolCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly id?: string;
}

/** Token usage the fake reports. Defaults to small fixed counts. */
export interface FakeUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** A successful assistant answer. */
export interface FakeMessageReply {
  readonly text?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  readonly usage?: FakeUsage;
  /** Milliseconds to wait before answering (to provoke client timeouts). */
  readonly delayMs?: number;
}

/**
 * A failed call: the HTTP status and a message, rendered in the provider's error body format.
 * `retryAfterSeconds` sets the `retry-after` header (usually with status 429).
 */
export interface FakeErrorReply {
  readonly error: {
    readonly status: number;
    readonly message: string;
    /** The provider's error type string; a status-appropriate one when absent. */
    readonly type?: string;
    readonly retryAfterSeconds?: number;
  };
  readonly delayMs?: number;
}

/** One scripted answer of a fake LLM server. */
export type FakeLlmReply = FakeMessageReply | FakeErrorReply;

/** A request the fake received, parsed. */
export interface RecordedLlmRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The JSON body, or null when it was not JSON. */
  readonly body: Record<string, unknown> | null;
  readonly stream: boolean;
}

/** What a provider flavour must render. */
export interface FakeLlmFlavour {
  readonly name: 'openai' | 'anthropic';
  /** The one path this flavour answers, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** The status and body for an error reply. */
  errorBody(status: number, message: string, type: string | undefined): unknown;
  /** The JSON body of a non-streaming answer. */
  messageBody(reply: FakeMessageReply, ids: FakeIds, model: string): unknown;
  /** The SSE frames of a streaming answer, in order, without the trailing blank lines. */
  streamFrames(reply: FakeMessageReply, ids: FakeIds, model: string): string[];
}

/** Deterministic ids for one answer: the answer's number and a tool-call id generator. */
export interface FakeIds {
  readonly seq: number;
  toolCallId(index: number): string;
}

/** Whether a reply is an error reply. */
export function isFakeErrorReply(reply: FakeLlmReply): reply is FakeErrorReply {
  return 'error' in reply;
}

/** Usage with defaults filled in. */
export function usageOf(reply: FakeMessageReply): FakeUsage {
  return reply.usage ?? { inputTokens: 10, outputTokens: 5 };
}
