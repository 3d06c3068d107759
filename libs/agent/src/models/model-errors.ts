import { AppError } from '@caravel/errors';

/** The facts of a failed provider call, whichever SDK raised it. */
export interface ProviderFailure {
  readonly provider: string;
  readonly status: number | null;
  readonly message: string;
  readonly retryAfterSeconds: number | null;
  readonly body?: unknown;
}

/** How OpenAI, Anthropic and OpenAI-compatible servers say a prompt exceeds the context window. */
const CONTEXT_EXCEEDED =
  /context[_ ]length|maximum context|context window|prompt is too long|too many (input )?tokens/i;

type HeaderBag = { get(name: string): string | null } | Record<string, string | undefined>;

function readHeader(headers: unknown, name: string): string | null {
  if (headers === null || typeof headers !== 'object') return null;
  const bag = headers as HeaderBag;
  if (typeof bag.get === 'function') return (bag as { get(n: string): string | null }).get(name);
  const value = (bag as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : null;
}

/** `retry-after` is seconds or an HTTP date; `retry-after-ms` (OpenAI) wins when present. */
function retryAfterFrom(headers: unknown, now: number): number | null {
  const ms = readHeader(headers, 'retry-after-ms');
  if (ms !== null && Number.isFinite(Number(ms))) return Number(ms) / 1000;
  const raw = readHeader(headers, 'retry-after');
  if (raw === null) return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}

function isTimeout(error: Error): boolean {
  return (
    error.name === 'TimeoutError' ||
    error.constructor.name === 'APIConnectionTimeoutError' ||
    /timed? ?out/i.test(error.message)
  );
}

/**
 * The coded error for a provider failure: 429 → RATE_LIMITED (retryable, `retryAfterSeconds` in
 * details); 408, 409, 5xx and Anthropic's 529 → DEPENDENCY_UNAVAILABLE (retryable); 401/403 →
 * CONFIG_INVALID (the operator's key is wrong, retrying cannot help); other 4xx → BAD_REQUEST;
 * no status (connection refused, reset) → DEPENDENCY_UNAVAILABLE.
 */
export function providerFailureError(failure: ProviderFailure, cause?: unknown): AppError {
  const { provider, status, retryAfterSeconds } = failure;
  const details = { provider, status, retryAfterSeconds, body: failure.body ?? null };
  const text = `${provider} model call failed${status === null ? '' : ` (HTTP ${status})`}: ${failure.message}`;
  if (status === 429) return new AppError('RATE_LIMITED', text, { details, cause });
  if (status === 401 || status === 403) {
    return new AppError('CONFIG_INVALID', `${text}; check the ${provider} credentials`, {
      details,
      cause,
    });
  }
  // The provider refused the prompt as too long (whatever status the client kept): the run ends
  // `exit_context`, as in SWE-agent, and retrying the same prompt cannot help.
  if (CONTEXT_EXCEEDED.test(failure.message)) {
    return new AppError('BAD_REQUEST', text, {
      details: { ...details, exitReason: 'exit_context' },
      cause,
    });
  }
  if (status !== null && status >= 400 && status < 500 && status !== 408 && status !== 409) {
    return new AppError('BAD_REQUEST', text, { details, cause });
  }
  return new AppError('DEPENDENCY_UNAVAILABLE', text, { details, cause, retryable: true });
}

/**
 * Turns whatever a LangChain provider class threw into a coded AppError. The model loop owns
 * retry policy (client retries are off or bounded), so it calls this on every failed call and
 * decides from `code`, `retryable` and `details.retryAfterSeconds`.
 */
export function toModelError(error: unknown, provider: string, now: number = Date.now()): AppError {
  if (error instanceof AppError) return error;
  if (!(error instanceof Error)) {
    return providerFailureError({
      provider,
      status: null,
      message: String(error),
      retryAfterSeconds: null,
    });
  }
  const fields = error as Error & { status?: unknown; headers?: unknown; error?: unknown };
  const status = typeof fields.status === 'number' ? fields.status : null;
  if (status === null && isTimeout(error)) {
    return new AppError('TIMEOUT', `${provider} model call timed out: ${error.message}`, {
      details: { provider },
      cause: error,
    });
  }
  return providerFailureError(
    {
      provider,
      status,
      message: error.message.split('\n')[0] ?? error.message,
      retryAfterSeconds: retryAfterFrom(fields.headers, now),
      body: fields.error,
    },
    error,
  );
}
