import { AppError } from '@caravel/errors';
import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatOpenAI } from '@langchain/openai';
import { CannedChatModel } from './canned/canned-chat.model.js';
import { readCannedSource } from './canned/canned-source.js';
import { assertProviderCredentials, type ModelCredentials } from './model-credentials.js';
import type { ResolvedModel } from './model-resolution.js';

/** The most client-level retries allowed: the agent loop owns retry policy. */
export const MAX_CLIENT_RETRIES = 3;

/** How the provider clients behave. Every field is optional. */
export interface ChatModelOptions {
  /** Per-call timeout in milliseconds (default 10 minutes). */
  readonly timeoutMs?: number;
  /** Retries inside the LangChain class, 0..MAX_CLIENT_RETRIES (default 0: the loop retries). */
  readonly maxRetries?: number;
  /** Overrides of the hosted providers' base URLs (a gateway, or the fakes in tests). */
  readonly anthropicBaseUrl?: string;
  readonly openaiBaseUrl?: string;
  /** Maximum output tokens per call; the provider class's default when absent. */
  readonly maxTokens?: number;
  /** Directory that relative `scripted:` / `replay:` paths are resolved against. */
  readonly fileRoot?: string;
}

const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

function checkedOptions(options: ChatModelOptions): { timeoutMs: number; maxRetries: number } {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? 0;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new AppError('CONFIG_INVALID', `model call timeout must be > 0 ms, got ${timeoutMs}`);
  }
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_CLIENT_RETRIES) {
    throw new AppError(
      'CONFIG_INVALID',
      `model client retries must be an integer 0..${MAX_CLIENT_RETRIES}, got ${maxRetries}`,
    );
  }
  return { timeoutMs, maxRetries };
}

function anthropicModel(
  model: ResolvedModel,
  credentials: ModelCredentials,
  options: ChatModelOptions,
): ChatAnthropic {
  const { timeoutMs, maxRetries } = checkedOptions(options);
  return new ChatAnthropic({
    model: model.modelId,
    apiKey: credentials.anthropicApiKey,
    maxRetries,
    maxTokens: options.maxTokens,
    clientOptions: { timeout: timeoutMs, maxRetries: 0 },
    ...(options.anthropicBaseUrl === undefined
      ? {}
      : { anthropicApiUrl: options.anthropicBaseUrl }),
    ...(model.effort === null || model.effort === 'none' || model.effort === 'minimal'
      ? {}
      : { outputConfig: { effort: model.effort } }),
  });
}

function openAiModel(
  model: ResolvedModel,
  apiKey: string | undefined,
  baseURL: string | undefined,
  options: ChatModelOptions,
): ChatOpenAI {
  const { timeoutMs, maxRetries } = checkedOptions(options);
  const effort = model.effort === 'max' ? undefined : model.effort;
  return new ChatOpenAI({
    model: model.modelId,
    apiKey,
    maxRetries,
    timeout: timeoutMs,
    maxTokens: options.maxTokens,
    configuration: baseURL === undefined ? {} : { baseURL },
    ...(effort === null || effort === undefined ? {} : { reasoning: { effort } }),
  });
}

/**
 * Builds the LangChain chat model for a resolved model: `ChatAnthropic`, `ChatOpenAI`, `ChatOpenAI`
 * on a custom base URL for OpenAI-compatible servers, or a canned model for `scripted:` and
 * `replay:` files (read now, so a bad file fails here with its position).
 *
 * Throws CONFIG_INVALID when the provider has no credentials (naming the variable an operator
 * sets) or the options are out of range. Client retries default to 0 and are bounded: provider
 * errors reach the caller, which classifies them with `toModelError`.
 */
export function createChatModel(
  model: ResolvedModel,
  credentials: ModelCredentials,
  options: ChatModelOptions = {},
): BaseChatModel {
  assertProviderCredentials(model.provider, credentials);
  switch (model.provider) {
    case 'anthropic':
      return anthropicModel(model, credentials, options);
    case 'openai':
      return openAiModel(model, credentials.openaiApiKey, options.openaiBaseUrl, options);
    case 'openai-compatible':
      return openAiModel(
        model,
        credentials.openaiCompatibleApiKey ?? 'unused',
        credentials.openaiCompatibleBaseUrl,
        options,
      );
    case 'scripted':
    case 'replay':
      return new CannedChatModel(readCannedSource(model.provider, model.modelId, options.fileRoot));
  }
}
