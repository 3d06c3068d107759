import { describe, expect, it } from '@jest/globals';
import { splitPatch } from './unified-diff.js';

describe('splitPatch', () => {
  it('cuts a patch after its first lines, counting the lines left', () => {
    expect(splitPatch('a\nb\nc\nd\n', 2)).toEqual({ head: 'a\nb', rest: 'c\nd', restLines: 2 });
  });

  it('leaves a patch of no more lines whole', () => {
    expect(splitPatch('a\nb\n', 2)).toEqual({ head: 'a\nb', rest: '', restLines: 0 });
    expect(splitPatch('a\nb', 2)).toEqual({ head: 'a\nb', rest: '', restLines: 0 });
    expect(splitPatch('a', 5)).toEqual({ head: 'a', rest: '', restLines: 0 });
  });
});
