import { describe, expect, it } from '@jest/globals';
import { comparePatches, normalisePatch } from './patch-compare.js';

/** A one-file patch as git writes it. */
function patch(index: string, added: string, eol = '\n'): string {
  return [
    'diff --git a/tests/missing_colon.py b/tests/missing_colon.py',
    index,
    '--- a/tests/missing_colon.py',
    '+++ b/tests/missing_colon.py',
    '@@ -1,3 +1,3 @@',
    ' #!/usr/bin/env python3',
    '-def division(a: float, b: float) -> float',
    `+${added}`,
    '     return a/b',
    '',
  ].join(eol);
}

const FIXED = 'def division(a: float, b: float) -> float:';
const INDEX = 'index 20edef5..5857437 100755';

describe('comparePatches', () => {
  it('accepts the same bytes and two empty submissions', () => {
    const same = { identical: true, byteIdentical: true, difference: 'none', summary: '' };
    expect(comparePatches('a\nb\n', 'a\nb\n')).toEqual(same);
    expect(comparePatches(null, '')).toEqual(same);
  });

  it("accepts SWE-agent's leading newline and CRLF line endings, reporting the bytes apart", () => {
    const replayed = patch(INDEX, FIXED);
    for (const recorded of [`\n${replayed}`, patch(INDEX, FIXED, '\r\n'), `${replayed}\n\n`]) {
      const result = comparePatches(recorded, replayed);
      expect(result).toMatchObject({
        identical: true,
        byteIdentical: false,
        difference: 'whitespace',
      });
      expect(result.summary).toContain('equal once CRLF becomes LF');
    }
  });

  it('compares the index lines only when the file contents are equal, and says how they differ', () => {
    const abbreviated = comparePatches(
      patch(INDEX, FIXED),
      patch('index 20edef51..58574371 100755', FIXED),
    );
    expect(abbreviated).toMatchObject({ identical: false, difference: 'index' });
    expect(abbreviated.summary.split('\n').slice(2)).toEqual([
      'the file contents are equal; the index lines differ (the same blobs, abbreviated to different lengths):',
      `- ${INDEX}`,
      '+ index 20edef51..58574371 100755',
    ]);
    const mode = comparePatches(patch(INDEX, FIXED), patch('index 20edef5..5857437 100644', FIXED));
    expect(mode.summary).toContain('(different blob hashes or modes)');
  });

  it('summarises a content difference as a unified diff without the index lines', () => {
    const result = comparePatches(
      patch(INDEX, FIXED, '\r\n'),
      patch('index 20edef5..1111111 100755', 'def division(a, b):'),
    );
    expect(result).toMatchObject({ identical: false, byteIdentical: false, difference: 'content' });
    const body = result.summary.split('\n').slice(2);
    expect(body).toEqual([
      'the patches change different content (normalised, index lines left out):',
      '@@ -5,4 +5,4 @@',
      '  #!/usr/bin/env python3',
      ' -def division(a: float, b: float) -> float',
      `-+${FIXED}`,
      '++def division(a, b):',
      '      return a/b',
    ]);
  });

  it('normalises CRLF and surrounding whitespace only', () => {
    expect(normalisePatch('\n a\r\nb\r\n\n')).toBe('a\nb');
    expect(normalisePatch(null)).toBe('');
  });
});
