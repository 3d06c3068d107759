import { describe, expect, it } from '@jest/globals';
import { extractIssueRefs } from './linked-issues.js';
import { dedupeKeyFor, isRepoName, taskIdFor } from './task-id.js';

describe('extractIssueRefs', () => {
  it('finds URLs, owner/repo#n and bare #n, in order, without duplicates', () => {
    const text =
      'Fixes #12. See https://github.com/Other/Lib/issues/7 and other/lib#7, also acme/Tool#3 and #12 again';
    expect(extractIssueRefs(text, 'Acme/Widgets')).toEqual([
      { repo: 'other/lib', number: 7 },
      { repo: 'acme/tool', number: 3 },
      { repo: 'acme/widgets', number: 12 },
    ]);
  });

  it('ignores HTML comments, anchors inside words and longer numbers', () => {
    const text = '<!-- closes #99 -->\nsee page#4 and path/#5; version #1234';
    expect(extractIssueRefs(text, 'a/b')).toEqual([{ repo: 'a/b', number: 1234 }]);
  });

  it('tries a bare number in the fork parent as well', () => {
    expect(extractIssueRefs('resolves #8', 'me/fork', 'up/stream')).toEqual([
      { repo: 'me/fork', number: 8 },
      { repo: 'up/stream', number: 8 },
    ]);
  });

  it('finds nothing in text without references', () => {
    expect(extractIssueRefs('Refactor the parser', 'a/b')).toEqual([]);
  });
});

describe('task ids', () => {
  it('lowercases the repository everywhere', () => {
    expect(taskIdFor('Owner/Repo', 42)).toBe('owner__repo-42');
    expect(dedupeKeyFor('Owner/Repo', 42)).toBe('owner/repo#42');
  });

  it('accepts owner/repo and refuses anything else', () => {
    expect(isRepoName('acme/widgets.js')).toBe(true);
    expect(isRepoName('acme')).toBe(false);
    expect(isRepoName('acme/../x')).toBe(false);
  });
});
