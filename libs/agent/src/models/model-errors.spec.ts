import { AppError } from '@caravel/errors';
import { toModelError } from './model-errors.js';

function httpError(status: number, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`${status} provider said no\n\nTroubleshooting URL: x`), {
    status,
    headers: new Headers(headers),
    error: { message: 'provider said no' },
  });
}

describe('toModelError', () => {
  it('maps the TimeoutError LangChain raises for a client timeout to TIMEOUT', () => {
    const timeout = Object.assign(new Error('Request timed out.'), { name: 'TimeoutError' });
    const error = toModelError(timeout, 'openai');
    expect(error.code).toBe('TIMEOUT');
    expect(error.retryable).toBe(true);
  });

  it('reads retry-after in seconds, as an HTTP date, and retry-after-ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const seconds = toModelError(httpError(429, { 'retry-after': '12' }), 'anthropic', now);
    const date = toModelError(
      httpError(429, { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }),
      'anthropic',
      now,
    );
    const ms = toModelError(httpError(429, { 'retry-after-ms': '1500' }), 'openai', now);

    expect(seconds.details['retryAfterSeconds']).toBe(12);
    expect(date.details['retryAfterSeconds']).toBe(30);
    expect(ms.details['retryAfterSeconds']).toBe(1.5);
  });

  it.each([
    [500, 'DEPENDENCY_UNAVAILABLE', true],
    [529, 'DEPENDENCY_UNAVAILABLE', true],
    [408, 'DEPENDENCY_UNAVAILABLE', true],
    [429, 'RATE_LIMITED', true],
    [401, 'CONFIG_INVALID', false],
    [404, 'BAD_REQUEST', false],
  ])('maps HTTP %i to %s (retryable: %s)', (status, code, retryable) => {
    const error = toModelError(httpError(status), 'openai');
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    expect(error.details['status']).toBe(status);
    expect(error.message).not.toContain('Troubleshooting');
  });

  it('keeps AppErrors and wraps non-errors', () => {
    const coded = new AppError('TIMEOUT', 'already coded');
    expect(toModelError(coded, 'openai')).toBe(coded);
    expect(toModelError('socket hang up', 'openai').code).toBe('DEPENDENCY_UNAVAILABLE');
  });
});
