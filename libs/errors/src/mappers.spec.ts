import {
  AppError,
  DEPENDENCY_RETRY_AFTER_SECONDS,
  ERROR_CODES,
  httpStatusFor,
  RATE_LIMIT_RETRY_AFTER_SECONDS,
  retryAfterSecondsFor,
  settlementFor,
  toAppError,
} from './index.js';

describe('error mappers', () => {
  it('maps every code to a 4xx or 5xx status', () => {
    for (const code of ERROR_CODES) {
      const status = httpStatusFor(code);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
    }
  });

  it('acks success and duplicates, naks retryable errors, terms the rest', () => {
    expect(settlementFor({ ok: true })).toBe('ack');
    expect(settlementFor({ ok: false, error: new AppError('DUPLICATE', 'seen') })).toBe('ack');
    expect(settlementFor({ ok: false, error: new AppError('TIMEOUT', 'slow') })).toBe('nak');
    expect(settlementFor({ ok: false, error: new AppError('MESSAGE_MALFORMED', 'bad') })).toBe(
      'term',
    );
    expect(
      settlementFor({ ok: false, error: new AppError('NOT_FOUND', 'later', { retryable: true }) }),
    ).toBe('nak');
  });

  it('treats unknown throwables as retryable internal errors', () => {
    const wrapped = toAppError(new TypeError('boom'));
    expect(wrapped.code).toBe('INTERNAL');
    expect(wrapped.retryable).toBe(true);
    expect(settlementFor({ ok: false, error: 'a string' })).toBe('nak');
  });

  it('tells a caller when to retry a dependency outage or a rate limit, and nothing else', () => {
    const after = (code: (typeof ERROR_CODES)[number], details?: Record<string, unknown>) =>
      retryAfterSecondsFor(new AppError(code, 'x', details ? { details } : {}));
    expect(after('DEPENDENCY_UNAVAILABLE')).toBe(DEPENDENCY_RETRY_AFTER_SECONDS);
    expect(after('RATE_LIMITED')).toBe(RATE_LIMIT_RETRY_AFTER_SECONDS);
    expect(after('RATE_LIMITED', { retryAfterSeconds: 7.2 })).toBe(8);
    expect(after('DEPENDENCY_UNAVAILABLE', { retryAfterSeconds: 'soon' })).toBe(
      DEPENDENCY_RETRY_AFTER_SECONDS,
    );
    for (const code of ERROR_CODES) {
      if (httpStatusFor(code) < 500 && code !== 'RATE_LIMITED') expect(after(code)).toBeUndefined();
    }
    expect(after('INTERNAL')).toBeUndefined();
  });

  it('serialises without the stack', () => {
    const json = JSON.stringify(new AppError('FORBIDDEN', 'no', { details: { who: 'x' } }));
    expect(JSON.parse(json)).toEqual({
      code: 'FORBIDDEN',
      message: 'no',
      retryable: false,
      details: { who: 'x' },
    });
  });
});
