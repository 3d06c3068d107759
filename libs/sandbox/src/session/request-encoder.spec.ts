import { describe, expect, it } from '@jest/globals';
import { sandboxErrorReason } from '../sandbox.errors.js';
import { encodeRequest, newSentinel, perCommandEnvScript, shellQuote } from './request-encoder.js';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('request encoding', () => {
  it('frames the command and env script with byte lengths', () => {
    const bytes = encodeRequest({
      sentinel: 'S1',
      command: 'echo é',
      env: {},
      timeoutMs: 1500,
      outputLimitBytes: 100,
    });
    expect(bytes.toString()).toBe('S1 1.500 100 7 0 0\necho é');
  });

  it('quotes values so bash takes them literally', () => {
    expect(shellQuote("it's $HOME")).toBe(`'it'\\''s $HOME'`);
    expect(perCommandEnvScript({ A: 'x y' })).toContain("export A='x y'");
  });

  it('refuses NUL bytes and names that are not shell identifiers', () => {
    const base = { sentinel: 'S', env: {}, timeoutMs: 1, outputLimitBytes: 1 };
    expect(sandboxErrorReason(caught(() => encodeRequest({ ...base, command: 'a\0b' })))).toBe(
      'invalid_input',
    );
    expect(sandboxErrorReason(caught(() => perCommandEnvScript({ 'A-B': '1' })))).toBe(
      'invalid_input',
    );
    expect(sandboxErrorReason(caught(() => perCommandEnvScript({ __caravel_s: '1' })))).toBe(
      'invalid_input',
    );
  });

  it('draws a fresh sentinel each time', () => {
    expect(newSentinel()).not.toBe(newSentinel());
    expect(newSentinel()).toMatch(/^CARAVEL_[0-9a-f]{24}$/);
  });
});
