import type { FakeLlmReply, FakeLlmServer, RecordedLlmRequest } from '@caravel/testing';

interface ChatMessage {
  role?: string;
  content?: unknown;
  tool_calls?: { function?: { name?: string } }[];
}

/** `[e2e:<tag>]`: how a conversation says which test case it belongs to. */
const TAG = /\[e2e:([a-z]+)\]/;

/** The file the agent writes for a case, and what it writes in it. */
export const fixFile = (tag: string) => ({ path: 'FIX.md', content: `fixed by caravel (${tag})` });

/** The text of a request's conversation, for searching. */
export function conversationOf(request: RecordedLlmRequest): string {
  return JSON.stringify(request.body?.['messages'] ?? []);
}

/** The case a request belongs to (its `[e2e:<tag>]`), if any. */
export function tagOf(request: RecordedLlmRequest): string | undefined {
  return TAG.exec(conversationOf(request))?.[1];
}

interface Hold {
  /** Until a message holding this text is in the conversation. */
  release: string;
  held: boolean;
}

/**
 * A stateless coding agent behind the fake OpenAI-compatible provider: every answer is decided
 * from the conversation in the request, so concurrent runs and runs resumed after an interrupt
 * are answered alike. It writes `FIX.md`, commits and opens the draft PR, replies with the PR's
 * link (read from the tool's observation, as a model would), and submits. A case can be held
 * after its edit until a follow-up message reaches the conversation.
 */
export class FixAgent {
  private readonly holds = new Map<string, Hold>();

  /** @param checks commands the agent runs after its edit, one model call each, in order. */
  constructor(
    fake: FakeLlmServer,
    private readonly checks: readonly string[] = [],
  ) {
    fake.respondWith((request) => this.answer(request));
  }

  /**
   * Holds the case `tag` on its model call after the edit (a long answer the run must be
   * interrupted out of) until `release` is in its conversation.
   */
  holdAfterEdit(tag: string, release: string): void {
    this.holds.set(tag, { release, held: false });
  }

  /** True once the case `tag` has been held. */
  isHeld(tag: string): boolean {
    return this.holds.get(tag)?.held ?? false;
  }

  private answer(request: RecordedLlmRequest): FakeLlmReply {
    const messages = (request.body?.['messages'] ?? []) as ChatMessage[];
    const conversation = conversationOf(request);
    const tag = TAG.exec(conversation)?.[1] ?? 'unknown';
    const calls = messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function?.name ?? ''));
    const called = new Set(calls);
    const hold = this.holds.get(tag);
    if (!called.has('execute')) {
      const { path, content } = fixFile(tag);
      return call('execute', { command: `echo "${content}" > ${path}` });
    }
    const check = this.checks[calls.filter((name) => name === 'execute').length - 1];
    if (check !== undefined) return call('execute', { command: check });
    if (hold && !conversation.includes(hold.release)) {
      hold.held = true;
      return { text: 'Thinking it over…', delayMs: 120_000 };
    }
    if (!called.has('commit_and_open_pr')) {
      return call('commit_and_open_pr', {
        commit_message: 'Add FIX.md',
        title: `Add FIX.md (${tag})`,
        body: 'Fixes the issue.',
      });
    }
    if (!called.has('reply_to_user')) {
      const url = /pull request #\d+: (\S+?)(?:\\n|"|$)/.exec(conversation)?.[1] ?? 'no PR link';
      return call('reply_to_user', { text: `Opened a draft PR with the fix: ${url}` });
    }
    return call('submit', {});
  }
}

function call(name: string, args: Record<string, unknown>): FakeLlmReply {
  return { toolCalls: [{ name, args }] };
}
