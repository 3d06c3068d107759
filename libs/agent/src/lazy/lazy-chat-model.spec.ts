import { strictMock } from '@caravel/testing/doubles';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { resolveModel } from '../models/model-resolution.js';
import { lazyChatModel, type ChatModelKit } from './lazy-chat-model.js';

describe('lazyChatModel', () => {
  it('loads the kit only when a model is asked for, then makes a fresh model each time', async () => {
    const made: unknown[][] = [];
    let loads = 0;
    const kit = {
      get: (): Promise<ChatModelKit> => {
        loads += 1;
        return Promise.resolve({
          MAX_CLIENT_RETRIES: 3,
          createChatModel: (...args) => {
            made.push(args);
            return strictMock<BaseChatModel>({}, `model ${made.length}`);
          },
        });
      },
    };
    const model = resolveModel({ team: { model: 'scripted:fix.json' } });
    const credentials = {};
    const next = lazyChatModel(kit, model, credentials, { timeoutMs: 1000, fileRoot: '/srv' });
    expect(loads).toBe(0);
    const first = await next();
    const second = await next();
    expect(first).not.toBe(second);
    expect(made).toEqual([
      [model, credentials, { timeoutMs: 1000, fileRoot: '/srv', maxRetries: 3 }],
      [model, credentials, { timeoutMs: 1000, fileRoot: '/srv', maxRetries: 3 }],
    ]);
  });
});
