import { AppError, ERROR_CODES, toAppError, type ErrorCode } from '@caravel/errors';

/** The wire form of a request/reply answer. */
export type ReplyBody =
  | { ok: true; value?: unknown }
  | {
      ok: false;
      error: {
        code: string;
        message: string;
        retryable: boolean;
        reason?: string;
        paths?: string[];
      };
    };

/** At most this many of a refusal's `details.paths` cross the wire. */
const MAX_WIRE_PATHS = 20;

/**
 * `details.paths` as it crosses the wire: the repository files a coded refusal names (the sandbox
 * broker's CI and workflow refusals), strings only, at most {@link MAX_WIRE_PATHS}; absent when
 * the error names none.
 */
function wirePaths(paths: unknown): { paths?: string[] } {
  if (!Array.isArray(paths)) return {};
  const names = paths.filter((path): path is string => typeof path === 'string');
  return names.length > 0 ? { paths: names.slice(0, MAX_WIRE_PATHS) } : {};
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(value === undefined ? '' : JSON.stringify(value));
}

/** Decodes a request payload; an empty body is `undefined`. */
export function decodeJson(bytes: Uint8Array): unknown {
  const text = decoder.decode(bytes);
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('BAD_REQUEST', 'request payload is not JSON');
  }
}

export function encodeSuccess(value: unknown): Uint8Array {
  return encodeJson({ ok: true, value } satisfies ReplyBody);
}

export function encodeFailure(error: unknown): Uint8Array {
  const appError = toAppError(error);
  // `details.reason` tells cases of one code apart (e.g. a sandbox file that does not exist from a
  // sandbox that does not), `details.paths` names the repository files a refusal is about; other
  // details may not be JSON-safe, or may name the responder's host, and stay with the responder.
  const reason = appError.details['reason'];
  const body: ReplyBody = {
    ok: false,
    error: {
      code: appError.code,
      message: appError.message,
      retryable: appError.retryable,
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(typeof reason === 'string' ? wirePaths(appError.details['paths']) : {}),
    },
  };
  return encodeJson(body);
}

function knownCode(code: string): ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : 'INTERNAL';
}

function isReplyBody(value: unknown): value is ReplyBody {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { ok?: unknown }).ok === 'boolean'
  );
}

/** Returns the answered value, or throws the responder's error as an AppError with its code. */
export function decodeReply<T>(bytes: Uint8Array, subject: string): T {
  const body = decodeJson(bytes);
  if (!isReplyBody(body)) {
    throw new AppError(
      'INTERNAL',
      `the responder on ${subject} sent a reply that is not a Caravel reply`,
    );
  }
  if (body.ok) return body.value as T;
  const { code, message, retryable, reason, paths } = body.error;
  throw new AppError(knownCode(code), message, {
    retryable,
    details: {
      subject,
      remoteCode: code,
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(typeof reason === 'string' ? wirePaths(paths) : {}),
    },
  });
}
