import { describe, expect, it } from '@jest/globals';
import { sandboxErrorReason } from '../sandbox.errors.js';
import { globToRegExp } from './glob-pattern.js';

describe("the sandbox's globToRegExp", () => {
  it("compiles with the tools' compiler and refuses a bad pattern as invalid_input", () => {
    expect(globToRegExp('src/**/*.{ts,md}').test('src/x/a.md')).toBe(true);
    let refused: unknown;
    try {
      globToRegExp('{a,b');
    } catch (error) {
      refused = error;
    }
    expect(sandboxErrorReason(refused)).toBe('invalid_input');
  });
});
