import { describe, expect, it } from '@jest/globals';

import { readReviewComment } from './comment-text.js';

describe('readReviewComment', () => {
  it('reads a Bugbot-style comment: heading title, severity label, description', () => {
    const reading = readReviewComment(
      [
        '### Resolves threads when line shifts',
        '',
        '**Medium Severity**',
        '',
        'Thread reconciliation treats the key as an exact match, including the line number.',
        '',
        '<details><summary>Additional Locations (1)</summary>',
        '',
        '- `actions/review/src/index.ts#L318-L338`',
        '</details>',
        '<!-- BUGBOT_BUG_ID: 123 -->',
      ].join('\n'),
    );
    expect(reading).toEqual({
      title: 'Resolves threads when line shifts',
      description:
        'Thread reconciliation treats the key as an exact match, including the line number.',
      severity: 'medium',
      suggestion: null,
    });
  });

  it('reads a CodeRabbit-style comment: label line, bold title, suggestion, nested details dropped', () => {
    const reading = readReviewComment(
      [
        '_⚠️ Potential issue_ | _🟠 Major_',
        '',
        '**Guard against an empty list.**',
        '',
        'Dividing by `items.length` yields NaN when the list is empty.',
        '',
        '```suggestion',
        'if (items.length === 0) return 0;',
        '```',
        '',
        '<details>',
        '<summary>🤖 Prompt for AI Agents</summary>',
        '<details><summary>inner</summary>x</details>',
        'In src/app.ts around line 10, fix the division.',
        '</details>',
      ].join('\r\n'),
    );
    expect(reading).toEqual({
      title: 'Guard against an empty list.',
      description: 'Dividing by `items.length` yields NaN when the list is empty.',
      severity: 'high',
      suggestion: 'if (items.length === 0) return 0;',
    });
  });

  it('takes a one-line comment as both title and description, medium by default', () => {
    expect(readReviewComment('Why is this `any`?')).toEqual({
      title: 'Why is this any?',
      description: 'Why is this any?',
      severity: 'medium',
      suggestion: null,
    });
  });

  it('does not read a severity out of prose', () => {
    expect(
      readReviewComment('High memory use when the cache grows.\nConsider a bound.').severity,
    ).toBe('medium');
  });

  it('cuts a long first line at a word to 120 characters', () => {
    const title = readReviewComment(`${'word '.repeat(40)}end`).title;
    expect(title.length).toBeLessThanOrEqual(120);
    expect(title.endsWith('word…')).toBe(true);
  });
});
