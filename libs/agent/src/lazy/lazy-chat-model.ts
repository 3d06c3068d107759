import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { createChatModel } from '../models/chat-model.factory.js';
import type { ModelCredentials } from '../models/model-credentials.js';
import type { ResolvedModel } from '../models/model-resolution.js';

/** What a kit loader hands out of `@caravel/agent/langchain` to make models with. */
export interface ChatModelKit {
  readonly createChatModel: typeof createChatModel;
  readonly MAX_CLIENT_RETRIES: number;
}

/**
 * Makes a fresh chat model for `model` at each call (a `scripted:` file is read again each time),
 * its client retrying a failed call itself as often as allowed: for agent loops without retry
 * middleware. The first call loads LangChain and the providers' SDKs through `kit`.
 */
export function lazyChatModel(
  kit: { get(): Promise<ChatModelKit> },
  model: ResolvedModel,
  credentials: ModelCredentials,
  options: { readonly timeoutMs: number; readonly fileRoot: string },
): () => Promise<BaseChatModel> {
  return async () => {
    const { createChatModel, MAX_CLIENT_RETRIES } = await kit.get();
    return createChatModel(model, credentials, { ...options, maxRetries: MAX_CLIENT_RETRIES });
  };
}
