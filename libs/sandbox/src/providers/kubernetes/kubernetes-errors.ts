import type { AppError } from '@caravel/errors';
import { sandboxError } from '../../sandbox.errors.js';

/** What a failed API call carried: the HTTP status and the API server's `Status` message. */
interface ApiFailure {
  readonly status?: number;
  readonly reason?: string;
  readonly message: string;
}

/** The `Status` object an API server answers errors with (or its JSON text). */
function statusOf(body: unknown): { message?: string; reason?: string } {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body) as unknown;
    } catch {
      return body.trim() ? { message: body.trim().slice(0, 300) } : {};
    }
  }
  if (typeof value !== 'object' || value === null) return {};
  const status = value as { message?: unknown; reason?: unknown };
  return {
    ...(typeof status.message === 'string' ? { message: status.message } : {}),
    ...(typeof status.reason === 'string' ? { reason: status.reason } : {}),
  };
}

/** Reads `@kubernetes/client-node`'s `ApiException` (code + body) or a transport error. */
export function describeApiFailure(error: unknown): ApiFailure {
  if (typeof error !== 'object' || error === null) return { message: String(error) };
  const failure = error as { code?: unknown; body?: unknown; message?: unknown };
  if (typeof failure.code === 'number') {
    const status = statusOf(failure.body);
    return {
      status: failure.code,
      ...(status.reason ? { reason: status.reason } : {}),
      message: status.message ?? `HTTP ${failure.code}`,
    };
  }
  const transport = typeof failure.code === 'string' ? `${failure.code}: ` : '';
  const message = typeof failure.message === 'string' ? failure.message : 'unknown API error';
  // A refused WebSocket upgrade (exec) only says so in its message.
  const upgrade = /Unexpected server response: (\d{3})/.exec(message);
  return { ...(upgrade ? { status: Number(upgrade[1]) } : {}), message: `${transport}${message}` };
}

/** The HTTP status of a failed API call, if the API server answered. */
export function apiStatus(error: unknown): number | undefined {
  return describeApiFailure(error).status;
}

/**
 * A coded sandbox error for a failed Kubernetes API call: 401/403 mean the broker's own
 * credentials or RBAC are wrong (`provider_auth_failed`, naming the verb it was refused), 404 a
 * missing pod, 409 a pod that already exists, anything else (no answer, 5xx) an unavailable
 * provider. The message names what was being done and what the API server said.
 */
export function kubernetesError(doing: string, error: unknown, sandboxId?: string): AppError {
  const { status, reason, message } = describeApiFailure(error);
  const details = {
    ...(sandboxId ? { id: sandboxId } : {}),
    ...(status ? { status } : {}),
    ...(reason ? { apiReason: reason } : {}),
  };
  if (status === 401 || status === 403) {
    return sandboxError(
      'provider_auth_failed',
      `kubernetes refused ${doing} (HTTP ${status}): ${message}; check the broker's ServiceAccount and its Role in the sandbox namespace`,
      details,
    );
  }
  if (status === 404)
    return sandboxError('sandbox_not_found', `kubernetes: ${doing}: ${message}`, details);
  if (status === 409)
    return sandboxError('sandbox_exists', `kubernetes: ${doing}: ${message}`, details);
  return sandboxError(
    'provider_unavailable',
    `kubernetes API unavailable while ${doing}: ${status ? `HTTP ${status}: ` : ''}${message}`,
    details,
  );
}

/** Bounds an API call: past `timeoutMs` it fails as an unavailable provider naming what it did. */
export async function withDeadline<T>(
  doing: string,
  timeoutMs: number,
  call: Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          sandboxError(
            'provider_unavailable',
            `kubernetes API unavailable while ${doing}: no answer within ${timeoutMs} ms`,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([call, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
