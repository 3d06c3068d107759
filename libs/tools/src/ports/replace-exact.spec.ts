import { describe, expect, it } from '@jest/globals';

import { replaceExact } from './replace-exact.js';

describe('replaceExact', () => {
  it('replaces a unique occurrence and reports the line it started on', () => {
    expect(replaceExact('a\nb\nc\n', 'b', 'B', false)).toEqual({
      status: 'replaced',
      occurrences: 1,
      lines: [2],
      content: 'a\nB\nc\n',
    });
  });

  it('refuses an ambiguous match unless asked to replace all', () => {
    expect(replaceExact('x\ny x\nx\n', 'x', 'z', false)).toEqual({
      status: 'ambiguous',
      occurrences: 3,
      lines: [1, 2, 3],
    });
    const all = replaceExact('x\ny x\nx\n', 'x', 'z', true);
    expect(all).toMatchObject({ status: 'replaced', occurrences: 3, content: 'z\ny z\nz\n' });
  });

  it('reports no match, and compares whitespace and tabs exactly', () => {
    expect(replaceExact('\tindented\n', '    indented', 'x', false)).toEqual({
      status: 'no-match',
    });
    expect(replaceExact('\tindented\n', '\tindented', '\tdone', false)).toMatchObject({
      content: '\tdone\n',
    });
  });
});
