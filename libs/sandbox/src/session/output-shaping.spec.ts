import { describe, expect, it } from '@jest/globals';
import { elisionNote, safeText, shapeOutput } from './output-shaping.js';

describe('safeText', () => {
  it('escapes NUL and control bytes, replaces invalid UTF-8, keeps tabs and newlines', () => {
    expect(safeText(Buffer.from([0x61, 0x00, 0x09, 0xff, 0x0a, 0x07]))).toBe(
      'a\\x00\t\uFFFD\n\\x07',
    );
  });

  it('drops ANSI colour codes and normalizes carriage returns', () => {
    expect(safeText(Buffer.from('\x1b[1;31mred\x1b[0m\r\nbar 10%\rbar 20%'))).toBe(
      'red\nbar 10%\nbar 20%',
    );
  });

  it('keeps multi-byte UTF-8 intact', () => {
    expect(safeText(Buffer.from('héllo ✓'))).toBe('héllo ✓');
  });
});

describe('shapeOutput', () => {
  it('returns output whole when nothing was dropped', () => {
    expect(shapeOutput(Buffer.from('all'), Buffer.alloc(0), 3)).toEqual({
      output: 'all',
      truncated: false,
    });
  });

  it('joins head and tail around a note naming the dropped bytes', () => {
    const shaped = shapeOutput(Buffer.from('head'), Buffer.from('tail'), 1008);
    expect(shaped).toEqual({ output: `head${elisionNote(1000)}tail`, truncated: true });
    expect(shaped.output).toContain('[... 1000 bytes of output elided ...]');
  });
});
