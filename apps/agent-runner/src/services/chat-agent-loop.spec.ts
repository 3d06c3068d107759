import { describe, expect, it } from '@jest/globals';
import { SilentModel } from '../testing/silent-model.js';
import { askChatAgent } from './chat-agent-loop.js';

describe('askChatAgent', () => {
  it('stops when its signal aborts: the model call in flight is aborted and the answer rejects', async () => {
    const model = new SilentModel('chat-agent-loop.spec.ts');
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
    expect(model.aborted).toBe(1);
  });
});
