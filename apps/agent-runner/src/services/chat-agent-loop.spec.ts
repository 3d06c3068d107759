import { CannedChatModel } from '@caravel/agent/langchain';
import { describe, expect, it } from '@jest/globals';
import type { BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { askChatAgent } from './chat-agent-loop.js';

/**
 * A provider that does not answer: each call waits until its signal aborts, then fails with the
 * abort (as an HTTP client's aborted request does). `asked` resolves once the first call waits.
 */
class SilentModel extends CannedChatModel {
  readonly aborted: string[] = [];
  readonly asked: Promise<void>;
  private seen!: () => void;

  constructor() {
    super({ responses: [], file: 'chat-agent-loop.spec.ts', kind: 'scripted' });
    this.asked = new Promise((resolve) => (this.seen = resolve));
  }

  override async _generate(
    _messages: BaseMessage[],
    options: this['ParsedCallOptions'],
  ): Promise<ChatResult> {
    this.seen();
    const { signal } = options;
    await new Promise((resolve) => signal?.addEventListener('abort', resolve, { once: true }));
    this.aborted.push('call aborted');
    throw signal?.reason ?? new Error('aborted');
  }
}

describe('askChatAgent', () => {
  it('stops when its signal aborts: the model call in flight is aborted and the answer rejects', async () => {
    const model = new SilentModel();
    const stopping = new AbortController();
    const answer = askChatAgent({
      model,
      tools: [],
      systemPrompt: 'answer',
      question: 'where is the cache?',
      author: 'ada',
      signal: stopping.signal,
    });
    const settled = answer.then(
      () => 'answered',
      () => 'rejected',
    );
    await model.asked;
    stopping.abort(new Error('the runner is shutting down'));
    expect(await settled).toBe('rejected');
    expect(model.aborted).toEqual(['call aborted']);
  });
});
