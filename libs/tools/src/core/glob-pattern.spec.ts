import { describe, expect, it } from '@jest/globals';
import { globToRegExp, matchesGlob } from './glob-pattern.js';

const matches = (pattern: string, path: string) => globToRegExp(pattern).test(path);

describe('globToRegExp', () => {
  it('keeps * and ? within one segment', () => {
    expect(matches('*.ts', 'a.ts')).toBe(true);
    expect(matches('*.ts', 'src/a.ts')).toBe(false);
    expect(matches('a?.md', 'ab.md')).toBe(true);
  });

  it('lets ** cross segments, including none', () => {
    expect(matches('**/*.ts', 'a.ts')).toBe(true);
    expect(matches('src/**/*.ts', 'src/x/y/a.ts')).toBe(true);
    expect(matches('src/**', 'src/x/y')).toBe(true);
  });

  it('supports classes, negated classes and alternatives', () => {
    expect(matches('file[0-9].txt', 'file7.txt')).toBe(true);
    expect(matches('file[!0-9].txt', 'file7.txt')).toBe(false);
    expect(matches('*.{ts,md}', 'x.md')).toBe(true);
    expect(matches('*.{ts,md}', 'x.js')).toBe(false);
  });

  it('treats regex characters literally', () => {
    expect(matches('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(matches('a.txt', 'abtxt')).toBe(false);
  });

  it('refuses an empty pattern and an unclosed brace', () => {
    expect(() => globToRegExp('')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    expect(() => globToRegExp('{a,b')).toThrow(/unclosed/);
  });

  it('matches a pattern without a slash against the base name, one with a slash the whole path', () => {
    expect(matchesGlob('src/deep/a.ts', '*.ts')).toBe(true);
    expect(matchesGlob('src/deep/a.ts', 'src/*.ts')).toBe(false);
    expect(matchesGlob('src/deep/a.ts', 'src/**/*.ts')).toBe(true);
  });
});
