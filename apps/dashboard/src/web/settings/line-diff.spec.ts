import { describe, expect, it } from '@jest/globals';
import { lineDiff } from './line-diff.js';

const shown = (before: string, after: string) =>
  lineDiff(before, after).map(
    ({ kind, text }) => `${{ same: ' ', removed: '-', added: '+' }[kind]}${text}`,
  );

describe('lineDiff', () => {
  it('keeps the common lines and marks what one version removed and the other added', () => {
    expect(shown('a\nb\nc', 'a\nB\nc\nd')).toEqual([' a', '-b', '+B', ' c', '+d']);
  });

  it('shows two equal texts as kept, and an empty side as wholly added or removed', () => {
    expect(shown('x\ny', 'x\ny')).toEqual([' x', ' y']);
    expect(shown('', 'x')).toEqual(['-', '+x']);
    expect(shown('x', '')).toEqual(['-x', '+']);
  });

  it('finds the longest run in common, not the first match', () => {
    expect(shown('p\nq\nr\ns', 'q\nr\ns\np')).toEqual(['-p', ' q', ' r', ' s', '+p']);
  });
});
