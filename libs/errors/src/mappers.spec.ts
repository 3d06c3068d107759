import { AppError, ERROR_CODES, httpStatusFor, settlementFor, toAppError } from './index.js';

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
