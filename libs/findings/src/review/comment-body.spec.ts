import { describe, expect, it } from '@jest/globals';

import { aFinding } from '../testing/finding.factory.js';
import { inlineCommentBody, suggestionBlock } from './comment-body.js';
import { parseFindingMarker } from './markers.js';

describe('inlineCommentBody', () => {
  it('carries the finding marker, the severity mark, title, description, lines and a feedback line', () => {
    const finding = aFinding({
      severity: 'high',
      title: 'Unchecked index',
      description: 'Reads past the end.',
    });
    const body = inlineCommentBody(finding);
    expect(parseFindingMarker(body)).toEqual({
      v: 1,
      id: finding.id,
      file: 'src/app.ts',
      start_line: 10,
      end_line: 12,
      side: 'RIGHT',
    });
    expect(body).toContain('🟠 **Unchecked index**\n\nReads past the end.');
    expect(body).toContain('lines 10-12');
    expect(body).toContain('👍 or 👎');
  });

  it('adds a suggestion block only on RIGHT line anchors', () => {
    expect(inlineCommentBody(aFinding({ suggestion: 'return 0;' }))).toContain(
      '```suggestion\nreturn 0;\n```',
    );
    const left = aFinding({ side: 'LEFT', suggestion: 'return 0;' });
    left.anchor.side = 'LEFT';
    expect(inlineCommentBody(left)).not.toContain('suggestion');
    expect(inlineCommentBody(left)).toContain('(old version)');
  });
});

describe('suggestionBlock', () => {
  it('fences a suggestion holding a fence with a longer one', () => {
    expect(suggestionBlock('```js\nx\n```')).toBe('````suggestion\n```js\nx\n```\n````');
  });
});
