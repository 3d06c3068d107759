import { AppError } from '@caravel/errors';
import { createMiddleware, type AgentMiddleware, type ModelRequest } from 'langchain';
import { describeError, findAppError, isControlFlow } from './error-inspection.js';
import { isRetryableModelError } from './model-errors.js';
import type { MiddlewareEventSink } from './ports.js';

/** Which model a run uses, as the event log names it. */
export interface ModelIdentity {
  modelId: string;
  provider: string;
}

/** A fallback model and whether the platform holds credentials for its provider. */
export interface FallbackModel extends ModelIdentity {
  model: ModelRequest['model'];
  hasCredentials: boolean;
}

/** Parameters of {@link modelFallbackMiddleware}. */
export interface ModelFallbackOptions {
  primary: ModelIdentity;
  fallback?: FallbackModel;
  events: MiddlewareEventSink;
  /** Which failures justify the retry (default {@link isRetryableModelError}). */
  isRetryable?: (error: unknown) => boolean;
}

/** The fallback to use, or undefined when there is none, it is the primary, or it lacks credentials. */
export function usableFallback(
  options: Pick<ModelFallbackOptions, 'primary' | 'fallback'>,
): FallbackModel | undefined {
  const { primary, fallback } = options;
  if (fallback === undefined || !fallback.hasCredentials) return undefined;
  if (fallback.modelId === primary.modelId && fallback.provider === primary.provider)
    return undefined;
  return fallback;
}

function bothFailed(
  primary: ModelIdentity,
  fallback: ModelIdentity,
  first: unknown,
  second: unknown,
): AppError {
  const code = findAppError(second)?.code ?? 'DEPENDENCY_UNAVAILABLE';
  return new AppError(
    code,
    `model ${primary.modelId} failed (${describeError(first)}) and fallback ${fallback.modelId} failed too (${describeError(second)})`,
    {
      cause: second,
      retryable: isRetryableModelError(second),
      details: { primary: primary.modelId, fallback: fallback.modelId },
    },
  );
}

/**
 * On a retryable model error, retries that one call once on the fallback model — only when a
 * fallback is configured, differs from the primary and has credentials. Every switch is reported
 * through the event sink, so the model (and provider) in use never changes silently.
 */
export function modelFallbackMiddleware(options: ModelFallbackOptions): AgentMiddleware {
  const { primary, events } = options;
  const fallback = usableFallback(options);
  const isRetryable = options.isRetryable ?? isRetryableModelError;
  return createMiddleware({
    name: 'model-fallback',
    wrapModelCall: async (request, handler) => {
      try {
        return await handler(request);
      } catch (error) {
        if (fallback === undefined || isControlFlow(error) || !isRetryable(error)) throw error;
        const to = { modelId: fallback.modelId, provider: fallback.provider };
        events.emit({ type: 'model_fallback', from: primary, to, reason: describeError(error) });
        try {
          return await handler({ ...request, model: fallback.model });
        } catch (second) {
          if (isControlFlow(second)) throw second;
          throw bothFailed(primary, to, error, second);
        }
      }
    },
  });
}
