import { describe, expect, it } from '@jest/globals';

import { pathOfMarkerLine, pathsOfGitHeader, readQuoted } from './git-path.js';

const AB = ['a/', 'b/'] as const;

describe('readQuoted', () => {
  it('decodes octal bytes as UTF-8 and the C escapes', () => {
    expect(readQuoted('"a/\\303\\251t\\303\\251 \\"x\\"\\t\\\\.txt" rest')).toEqual({
      value: 'a/été "x"\t\\.txt',
      rest: ' rest',
    });
  });

  it('keeps characters git left unescaped (core.quotePath=false)', () => {
    expect(readQuoted('"a/日本\\tx"')?.value).toBe('a/日本\tx');
  });

  it('answers undefined for unclosed strings and unknown escapes', () => {
    expect(readQuoted('"a/b')).toBeUndefined();
    expect(readQuoted('"a/\\qb"')).toBeUndefined();
    expect(readQuoted('a/b')).toBeUndefined();
  });
});

describe('pathsOfGitHeader', () => {
  it('splits an unquoted header with spaces into two equal halves', () => {
    expect(pathsOfGitHeader('a/my b/file.txt b/my b/file.txt', AB)).toEqual({
      oldPath: 'my b/file.txt',
      newPath: 'my b/file.txt',
    });
  });

  it('reads quoted names on either or both sides', () => {
    expect(pathsOfGitHeader('"a/\\303\\251.txt" "b/\\303\\251.txt"', AB)).toEqual({
      oldPath: 'é.txt',
      newPath: 'é.txt',
    });
    expect(pathsOfGitHeader('a/plain.txt "b/\\303\\251.txt"', AB)).toEqual({
      oldPath: 'plain.txt',
      newPath: 'é.txt',
    });
  });

  it('splits different unquoted names at the first " b/"', () => {
    expect(pathsOfGitHeader('a/old.txt b/new.txt', AB)).toEqual({
      oldPath: 'old.txt',
      newPath: 'new.txt',
    });
  });
});

describe('pathOfMarkerLine', () => {
  it('drops the tab git adds after names with spaces, and reads /dev/null as no file', () => {
    expect(pathOfMarkerLine('a/my file.txt\t', 'a/')).toBe('my file.txt');
    expect(pathOfMarkerLine('"b/\\303\\251 t.txt"\t', 'b/')).toBe('é t.txt');
    expect(pathOfMarkerLine('/dev/null', 'a/')).toBeNull();
  });
});
