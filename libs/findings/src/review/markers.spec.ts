import { describe, expect, it } from '@jest/globals';

import { sha } from '../testing/finding.factory.js';
import {
  parseFindingMarker,
  parseReviewMarker,
  renderFindingMarker,
  renderReviewMarker,
  type FindingMarker,
} from './markers.js';

describe('hidden markers', () => {
  it('round-trips a review marker inside a longer body', () => {
    const marker = {
      v: 1 as const,
      pr: 12,
      head: sha('a'),
      threshold: 'medium' as const,
      findings: ['f_0123456789'],
    };
    const body = `${renderReviewMarker(marker)}\n**Caravel** reviewed …`;
    expect(body.startsWith('<!-- caravel-review {')).toBe(true);
    expect(parseReviewMarker(body)).toEqual(marker);
  });

  it('keeps a path holding --> and -- from closing or breaking the HTML comment', () => {
    const marker: FindingMarker = {
      v: 1,
      id: 'f_abcdefabcd',
      file: 'odd-->name--x.ts',
      start_line: 3,
      end_line: 4,
      side: 'RIGHT',
    };
    const rendered = renderFindingMarker(marker);
    expect(rendered.slice(4, -3)).not.toContain('--');
    expect(rendered.slice(4, -3)).not.toContain('>');
    expect(parseFindingMarker(`text\n${rendered}\nmore`)).toEqual(marker);
  });

  it('answers null for bodies without a marker or with an edited, invalid one', () => {
    expect(parseReviewMarker('LGTM')).toBeNull();
    expect(parseFindingMarker('<!-- caravel-finding {"v":1,"id":"nope"} -->')).toBeNull();
    expect(parseFindingMarker('<!-- caravel-finding {not json} -->')).toBeNull();
  });
});
