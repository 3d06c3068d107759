import { AppError } from '@caravel/errors';
import {
  decodeJson,
  decodeReply,
  encodeFailure,
  encodeJson,
  encodeSuccess,
} from './reply-codec.js';

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

describe('reply codec', () => {
  it('round-trips an answer', () => {
    expect(decodeReply(encodeSuccess({ files: ['a.ts'] }), 's')).toEqual({ files: ['a.ts'] });
    expect(decodeReply(encodeSuccess(undefined), 's')).toBeUndefined();
  });

  it("rethrows the responder's AppError with its code, message and retryability", () => {
    const error = thrown(() =>
      decodeReply(encodeFailure(new AppError('CONFLICT', 'busy')), 'sandbox.x.exec'),
    );
    expect(error).toMatchObject({ code: 'CONFLICT', message: 'busy', retryable: false });
    expect(error.details).toMatchObject({ subject: 'sandbox.x.exec' });
  });

  it("keeps the responder's details.reason, and only that of its details", () => {
    const failure = new AppError('NOT_FOUND', 'no such file', {
      details: { reason: 'file_not_found', path: '/secret/host/path' },
    });
    const error = thrown(() => decodeReply(encodeFailure(failure), 'sandbox.x.read'));
    expect(error.details).toEqual({
      subject: 'sandbox.x.read',
      remoteCode: 'NOT_FOUND',
      reason: 'file_not_found',
    });
    expect(
      thrown(() => decodeReply(encodeFailure(new AppError('CONFLICT', 'x')), 's')).details,
    ).not.toHaveProperty('reason');
  });

  it('keeps the repository files a coded refusal names (details.paths), strings only, at most 20', () => {
    const named = Array.from({ length: 25 }, (_, i) => `.github/workflows/w${i}.yml`);
    const refusal = new AppError('FORBIDDEN', 'GitHub refused the push', {
      details: { reason: 'workflow_permission', paths: [7, ...named], path: '/host/mirror' },
    });

    const error = thrown(() => decodeReply(encodeFailure(refusal), 'sandbox.x.git-push'));

    expect(error.details).toEqual({
      subject: 'sandbox.x.git-push',
      remoteCode: 'FORBIDDEN',
      reason: 'workflow_permission',
      paths: named.slice(0, 20),
    });
    // Without a reason there is no refusal the paths are about.
    const unnamed = new AppError('CONFLICT', 'x', { details: { paths: ['a.yml'] } });
    expect(thrown(() => decodeReply(encodeFailure(unnamed), 's')).details).not.toHaveProperty(
      'paths',
    );
    // A reply sent with paths that are not strings carries none of them.
    const forged = encodeJson({
      ok: false,
      error: { code: 'FORBIDDEN', message: 'x', retryable: false, reason: 'r', paths: [{}] },
    });
    expect(thrown(() => decodeReply(forged, 's')).details).not.toHaveProperty('paths');
  });

  it('turns a plain thrown error into a retryable INTERNAL one', () => {
    const error = thrown(() => decodeReply(encodeFailure(new Error('boom')), 's'));
    expect(error).toMatchObject({ code: 'INTERNAL', message: 'boom', retryable: true });
  });

  it('maps a code this version does not know to INTERNAL, keeping the original', () => {
    const body = encodeJson({
      ok: false,
      error: { code: 'FROM_THE_FUTURE', message: 'x', retryable: true },
    });
    const error = thrown(() => decodeReply(body, 's'));
    expect(error.code).toBe('INTERNAL');
    expect(error.details).toMatchObject({ remoteCode: 'FROM_THE_FUTURE' });
  });

  it('rejects a reply that is not a Caravel reply', () => {
    expect(thrown(() => decodeReply(encodeJson({ hello: 1 }), 's')).code).toBe('INTERNAL');
  });

  it('decodes an empty request as undefined and refuses non-JSON', () => {
    expect(decodeJson(new Uint8Array())).toBeUndefined();
    expect(thrown(() => decodeJson(new TextEncoder().encode('{'))).code).toBe('BAD_REQUEST');
  });
});
