import type { AppError } from '@caravel/errors';
import { sandboxError } from '../../sandbox.errors.js';

/** What dockerode's errors carry: the engine's HTTP status, or a socket error code. */
interface EngineFailure {
  readonly statusCode?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly json?: { readonly message?: unknown } | null;
}

function describe(error: unknown): { status?: number; code?: string; message: string } {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const failure = error as EngineFailure;
  const engineMessage = failure.json?.message;
  return {
    ...(typeof failure.statusCode === 'number' ? { status: failure.statusCode } : {}),
    ...(typeof failure.code === 'string' ? { code: failure.code } : {}),
    message:
      typeof engineMessage === 'string'
        ? engineMessage
        : typeof failure.message === 'string'
          ? failure.message
          : 'unknown engine error',
  };
}

/** The HTTP status of a dockerode error (404 for a missing container), if the engine answered. */
export function engineStatus(error: unknown): number | undefined {
  return describe(error).status;
}

/**
 * A coded sandbox error for a failed engine call: a missing container or image is NOT_FOUND, a
 * name conflict is CONFLICT, anything else (no engine, socket refused, 5xx) means the provider is
 * unavailable. The message names what was being done and what the engine said.
 */
export function dockerError(doing: string, error: unknown, sandboxId?: string): AppError {
  const { status, code, message } = describe(error);
  const details = { ...(sandboxId ? { id: sandboxId } : {}), ...(status ? { status } : {}) };
  if (status === 404 && /no such image/i.test(message)) {
    return sandboxError('provider_unavailable', `docker: ${doing}: ${message}`, details);
  }
  if (status === 404)
    return sandboxError('sandbox_not_found', `docker: ${doing}: ${message}`, details);
  if (status === 409)
    return sandboxError('sandbox_exists', `docker: ${doing}: ${message}`, details);
  const cause = code ? `${code} (${message})` : message;
  return sandboxError(
    'provider_unavailable',
    `docker engine unavailable while ${doing}: ${cause}`,
    details,
  );
}
