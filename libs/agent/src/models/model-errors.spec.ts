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

  it.each([
    "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.",
    'prompt is too long: 210000 tokens > 200000 maximum',
    'Input exceeds the context window of this model',
  ])('marks a refused over-long prompt as exit_context: %s', (message) => {
    const error = toModelError(Object.assign(new Error(message), { status: 400 }), 'openai');
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.details['exitReason']).toBe('exit_context');
  });

  it('recognises an over-long prompt even when the client lost the status', () => {
    const error = toModelError(new Error('prompt is too long: 300000 tokens'), 'anthropic');
    expect(error).toMatchObject({ code: 'BAD_REQUEST', retryable: false });
    expect(error.details['exitReason']).toBe('exit_context');
  });

  it('leaves other refusals without an exit reason', () => {
    const error = toModelError(
      Object.assign(new Error('invalid tool schema'), { status: 400 }),
      'openai',
    );
    expect(error.details['exitReason']).toBeUndefined();
  });

  it('keeps AppErrors and wraps non-errors', () => {
    const coded = new AppError('TIMEOUT', 'already coded');
    expect(toModelError(coded, 'openai')).toBe(coded);
    expect(toModelError('socket hang up', 'openai').code).toBe('DEPENDENCY_UNAVAILABLE');
  });
});
