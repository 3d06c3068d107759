import type { FakeLlmReply, FakeLlmServer, RecordedLlmRequest } from '@caravel/testing';

/** `[chaos:<case>]` in a run's prompt: which script answers its model calls. */
const TAG = /\[chaos:([a-z0-9-]+)\]/;

interface ChatMessage {
  role?: string;
}

interface Held {
  readonly turn: number;
  reached: boolean;
  readonly resolve: () => void;
}

/**
 * A stateless scripted model behind the fake OpenAI-compatible provider: each answer is the turn
 * of its case's script that the conversation in the request has reached (its count of assistant
 * messages), so a run resumed by another runner is answered where it left off. It counts every
 * call per case and turn, which is how a repeated model call shows.
 */
export class ScriptedAgent {
  private readonly scripts = new Map<string, readonly FakeLlmReply[]>();
  private readonly calls = new Map<string, number[]>();
  private readonly holds = new Map<string, Held>();
  /** Calls that were cut off on purpose (held until the runner died), per case and turn. */
  private readonly cutOff = new Map<string, number[]>();

  constructor(fake: FakeLlmServer) {
    fake.respondWith((request) => this.answer(request));
  }

  /** The answers of case `tag`, one per model call. */
  script(tag: string, turns: readonly FakeLlmReply[]): void {
    this.scripts.set(tag, turns);
  }

  /**
   * Resolves when case `tag` first asks for `turn`; that call is held unanswered (the runner is
   * to be killed during it) and counted as cut off, so its repeat is not a repeated call.
   */
  holdAt(tag: string, turn: number): Promise<void> {
    return new Promise((resolve) => this.holds.set(tag, { turn, reached: false, resolve }));
  }

  /** Calls per turn of case `tag`. */
  callsOf(tag: string): number[] {
    return [...(this.calls.get(tag) ?? [])];
  }

  /** Calls of case `tag` that repeated a completed one (a cut-off call may be made again once). */
  repeatedCalls(tag: string): number {
    const cut = this.cutOff.get(tag) ?? [];
    return this.callsOf(tag).reduce(
      (repeats, count, turn) => repeats + Math.max(0, count - 1 - (cut[turn] ?? 0)),
      0,
    );
  }

  private answer(request: RecordedLlmRequest): FakeLlmReply {
    const messages = (request.body?.['messages'] ?? []) as ChatMessage[];
    const tag = TAG.exec(JSON.stringify(messages))?.[1];
    const script = tag ? this.scripts.get(tag) : undefined;
    if (!tag || !script) return { text: 'Nothing to do.' };
    const turn = messages.filter((m) => m.role === 'assistant').length;
    const counts = this.calls.get(tag) ?? [];
    counts[turn] = (counts[turn] ?? 0) + 1;
    this.calls.set(tag, counts);
    const held = this.holds.get(tag);
    if (held && held.turn === turn && !held.reached) {
      held.reached = true;
      const cut = this.cutOff.get(tag) ?? [];
      cut[turn] = (cut[turn] ?? 0) + 1;
      this.cutOff.set(tag, cut);
      held.resolve();
      return { text: 'Thinking…', delayMs: 600_000 };
    }
    return script[Math.min(turn, script.length - 1)]!;
  }
}

/** A model answer that calls one tool. */
export const call = (name: string, args: Record<string, unknown>): FakeLlmReply => ({
  toolCalls: [{ name, args }],
});
