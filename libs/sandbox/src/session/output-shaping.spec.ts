import { describe, expect, it } from '@jest/globals';
import { elisionNote, SafeTextStream, safeText, shapeOutput } from './output-shaping.js';

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

describe('SafeTextStream', () => {
  const streamed = (pieces: (string | number[])[]): string[] => {
    const stream = new SafeTextStream();
    const out = pieces.map((piece) =>
      stream.push(typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece)),
    );
    return [...out, stream.end()];
  };

  it('gives the same text as safeText whatever the cuts', () => {
    const whole = Buffer.from('\x1b[1;31mred\x1b[0m\r\nhé ✓ 10%\rdone\x00\n');
    for (let cut = 0; cut <= whole.length; cut += 1) {
      const pieces = [[...whole.subarray(0, cut)], [...whole.subarray(cut)]];
      expect(streamed(pieces).join('')).toBe(safeText(whole));
    }
  });

  it('holds back only what may still change: a cut character, a lone CR, an open escape', () => {
    expect(streamed([[0x68, 0xc3], [0xa9]])).toEqual(['h', 'é', '']);
    expect(streamed(['a\r', '\nb'])).toEqual(['a', '\nb', '']);
    expect(streamed(['x\x1b[3', '1my'])).toEqual(['x', 'y', '']);
    expect(streamed(['tail\r'])).toEqual(['tail', '\n']);
  });

  it('lets an escape that never ends through once it is too long to be one', () => {
    const text = streamed(['\x1b]' + 'a'.repeat(300)]).join('');
    expect(text).toBe('\\x1b]' + 'a'.repeat(300));
  });
});
