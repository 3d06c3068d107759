import type { AppError } from '@caravel/errors';
import {
  SANDBOX_ERROR_REASONS,
  sandboxError,
  type SandboxErrorReason,
} from '../../sandbox.errors.js';

const KNOWN_REASONS = new Set<string>(Object.values(SANDBOX_ERROR_REASONS));

/** The reason an error status means when the service's body does not name one. */
function reasonForStatus(status: number): SandboxErrorReason {
  switch (status) {
    case 400:
    case 413:
    case 422:
      return 'invalid_input';
    case 401:
    case 403:
      return 'provider_auth_failed';
    case 404:
      return 'sandbox_not_found';
    case 409:
      return 'sandbox_exists';
    default:
      return 'provider_unavailable';
  }
}

/** The `{ error: { reason, message } }` a service may answer with, when it is well-formed. */
function errorBody(text: string): { reason?: string; message?: string } {
  try {
    const body = JSON.parse(text) as { error?: { reason?: unknown; message?: unknown } };
    const reason = body.error?.reason;
    const message = body.error?.message;
    return {
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(typeof message === 'string' ? { message: message.slice(0, 500) } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * A coded sandbox error for an HTTP error status. A reason named by the service wins when it is
 * one of the library's; otherwise the status decides (401/403: the API key was refused).
 */
export function errorForStatus(where: string, status: number, text: string): AppError {
  const body = errorBody(text);
  const reason =
    body.reason && KNOWN_REASONS.has(body.reason)
      ? (body.reason as SandboxErrorReason)
      : reasonForStatus(status);
  const said = body.message ? `: ${body.message}` : '';
  const message =
    reason === 'provider_auth_failed'
      ? `the remote sandbox service refused the API key (HTTP ${status} on ${where}); check the provider's apiKey${said}`
      : `remote sandbox service answered HTTP ${status} on ${where}${said}`;
  return sandboxError(reason, message, { status, request: where });
}

/** The service could not be reached, or did not answer in time. */
export function unreachable(
  baseUrl: string,
  where: string,
  error: unknown,
  timeoutMs: number,
): AppError {
  const failed = errorLike(error);
  const timedOut = failed?.name === 'TimeoutError' || failed?.name === 'AbortError';
  const what = timedOut ? `no answer within ${timeoutMs} ms` : causeText(error);
  return sandboxError(
    'provider_unavailable',
    `remote sandbox service at ${safeBase(baseUrl)} is unreachable (${where}): ${what}`,
    { request: where },
  );
}

/** A 2xx answer whose body is not what the API promises. */
export function malformedResponse(where: string, status: number, problem: string): AppError {
  return sandboxError(
    'provider_unavailable',
    `remote sandbox service sent a malformed response to ${where} (HTTP ${status}): ${problem}`,
    { request: where, status, malformed: true },
  );
}

/**
 * Errors from fetch may come from another realm (test sandboxes, workers), so they are read by
 * shape rather than `instanceof`.
 */
function errorLike(value: unknown): { name: string; message: string; cause?: unknown } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, message, cause } = value as { name?: unknown; message?: unknown; cause?: unknown };
  if (typeof message !== 'string') return undefined;
  return { name: typeof name === 'string' ? name : 'Error', message, cause };
}

/** fetch wraps the socket error (ECONNREFUSED and the like) in a generic "fetch failed". */
function causeText(error: unknown): string {
  const failed = errorLike(error);
  if (!failed) return String(error);
  const cause = errorLike(failed.cause);
  if (!cause) return failed.message;
  const code = (failed.cause as { code?: unknown }).code;
  return typeof code === 'string' ? `${code} (${cause.message})` : cause.message;
}

/** The base URL without any credentials it might embed. */
function safeBase(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, '');
}
