import { AppError, ERROR_CODES, toAppError, type ErrorCode } from '@caravel/errors';

/** A reply as it travels: the value, or the server's error in AppError's JSON shape. */
export type ReplyFrame =
  | { ok: true; value: unknown }
  | { ok: false; error: { code: string; message: string; retryable: boolean; details: Record<string, unknown> } };

/** Serialises a value the way a wire would, so in-process callers see what remote ones see. */
export function throughWire(value: unknown): unknown {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as unknown;
}

export function encodeReply(value: unknown): string {
  const frame: ReplyFrame = { ok: true, value: throughWire(value) };
  return JSON.stringify(frame);
}

export function encodeError(error: unknown): string {
  const frame: ReplyFrame = { ok: false, error: toAppError(error).toJSON() };
  return JSON.stringify(frame);
}

function isErrorCode(code: string): code is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code);
}

/** The value of a reply, or the server's error rethrown as an AppError with its code. */
export function decodeReply(text: string): unknown {
  const frame = JSON.parse(text) as ReplyFrame;
  if (frame.ok) return frame.value;
  const code = isErrorCode(frame.error.code) ? frame.error.code : 'INTERNAL';
  throw new AppError(code, frame.error.message, {
    retryable: frame.error.retryable,
    details: frame.error.details,
  });
}
