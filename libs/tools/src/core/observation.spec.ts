import { describe, expect, it } from '@jest/globals';

import {
  listingObservation,
  NO_OUTPUT_MESSAGE,
  shapeObservation,
  timeoutMessage,
} from './observation.js';

describe('shapeObservation', () => {
  it('replaces empty or whitespace-only output with the fixed message', () => {
    for (const raw of ['', '  \n\t\n']) {
      expect(shapeObservation(raw, { maxChars: 100 })).toEqual({
        text: NO_OUTPUT_MESSAGE,
        empty: true,
        truncated: false,
        elidedChars: 0,
      });
    }
  });

  it('returns output within the budget unchanged', () => {
    const shaped = shapeObservation('hello\n', { maxChars: 6 });
    expect(shaped).toEqual({ text: 'hello\n', empty: false, truncated: false, elidedChars: 0 });
  });

  it('keeps the head and the tail of long output and says how much was elided', () => {
    const raw = `HEAD${'x'.repeat(1000)}TAIL`;
    const shaped = shapeObservation(raw, { maxChars: 10 });
    expect(shaped.truncated).toBe(true);
    expect(shaped.elidedChars).toBe(raw.length - 10);
    expect(shaped.text.startsWith('HEADx')).toBe(true);
    expect(shaped.text).toContain('xTAIL');
    expect(shaped.text).toContain(`<response clipped: ${raw.length - 10} characters elided>`);
    expect(shaped.text).toContain('grep');
  });
});

describe('timeoutMessage', () => {
  it('names the limit in seconds and suggests a way out', () => {
    expect(timeoutMessage(1500)).toContain('timed out after 1.5 seconds');
    expect(timeoutMessage(120_000)).toContain('timeout_seconds');
  });
});

describe('listingObservation', () => {
  it('lists the lines, and says how many are shown and what to narrow when more matched', () => {
    const listing = { what: 'files', narrow: 'the pattern or the path' };
    expect(listingObservation(['a.ts', 'b.ts'], { ...listing, truncated: false })).toBe(
      'a.ts\nb.ts',
    );
    expect(listingObservation(['a.ts', 'b.ts'], { ...listing, truncated: true })).toBe(
      'a.ts\nb.ts\n(more than 2 files match; only the first 2 are shown. Narrow the pattern or the path.)',
    );
  });
});
