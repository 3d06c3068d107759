import { describe, expect, it } from '@jest/globals';
import { sandboxErrorReason } from '../sandbox.errors.js';
import { replaceExact } from './text-edit.js';

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return sandboxErrorReason(error);
  }
  return undefined;
}

describe('replaceExact', () => {
  it('replaces a unique occurrence exactly, with $ patterns left alone', () => {
    expect(replaceExact('a $1 b', '$1', '$&', { path: 'f' })).toEqual({
      content: 'a $& b',
      replacements: 1,
    });
  });

  it('fails clearly when the text is absent, ambiguous or empty', () => {
    expect(reasonOf(() => replaceExact('abc', 'x', 'y', { path: 'f' }))).toBe('edit_text_absent');
    expect(reasonOf(() => replaceExact('aa', 'a', 'y', { path: 'f' }))).toBe('edit_text_ambiguous');
    expect(reasonOf(() => replaceExact('aa', '', 'y', { path: 'f' }))).toBe('invalid_input');
  });

  it('replaces every occurrence when asked', () => {
    expect(replaceExact('aXaXa', 'X', '-', { path: 'f', replaceAll: true })).toEqual({
      content: 'a-a-a',
      replacements: 2,
    });
  });
});
