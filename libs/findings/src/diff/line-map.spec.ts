import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import type { Anchor } from '../model/finding.model.js';
import { createGitRepo, type GitRepo } from '../testing/git-repo.js';
import { mapAnchor, mapOldLine } from './line-map.js';
import { parseUnifiedDiff, type DiffFile } from './unified-diff.js';

const lines = (from: number, to: number, label = 'line'): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `${label} ${from + i}`);
const file = (rows: string[]): string => `${rows.join('\n')}\n`;
const right = (path: string, startLine: number | null, endLine: number | null): Anchor => ({
  file: path,
  startLine,
  endLine,
  side: 'RIGHT',
});

describe('mapAnchor across a push (inter-diff made by real git)', () => {
  let repo: GitRepo;
  let diff: DiffFile[];

  beforeAll(() => {
    repo = createGitRepo();
    const before = file(lines(1, 40));
    const reviewed = repo.commit('reviewed head', {
      'shift.ts': before,
      'edit.ts': before,
      'delete.ts': before,
      'rewrite.ts': before,
      'insert.ts': before,
      'old-name.ts': before,
      'removed.ts': before,
      'untouched.ts': before,
    });
    repo.git('mv', 'old-name.ts', 'new-name.ts');
    const head = repo.commit(
      'new head',
      {
        // three lines inserted above line 10
        'shift.ts': file([...lines(1, 5), 'a', 'b', 'c', ...lines(6, 40)]),
        // line 11 edited
        'edit.ts': file([...lines(1, 10), 'line 11 edited', ...lines(12, 40)]),
        // lines 10-12 deleted outright
        'delete.ts': file([...lines(1, 9), ...lines(13, 40)]),
        // lines 10-12 replaced by two new lines
        'rewrite.ts': file([...lines(1, 9), 'new a', 'new b', ...lines(13, 40)]),
        // a line inserted between 10 and 11
        'insert.ts': file([...lines(1, 10), 'inserted', ...lines(11, 40)]),
        // renamed, one line removed above
        'new-name.ts': file([...lines(2, 40)]),
      },
      ['removed.ts'],
    );
    diff = parseUnifiedDiff(repo.diff(reviewed, head));
  });

  afterAll(() => repo.remove());

  it('moves intact lines below an insertion', () => {
    expect(mapAnchor(right('shift.ts', 10, 12), diff)).toEqual({
      kind: 'moved',
      anchor: right('shift.ts', 13, 15),
    });
  });

  it('keeps lines above every change where they are', () => {
    expect(mapAnchor(right('shift.ts', 2, 4), diff)).toEqual({
      kind: 'unchanged',
      anchor: right('shift.ts', 2, 4),
    });
    expect(mapAnchor(right('untouched.ts', 10, 12), diff)).toEqual({
      kind: 'unchanged',
      anchor: right('untouched.ts', 10, 12),
    });
  });

  it('marks an edited line inside the range as changed, spanning what replaced it', () => {
    expect(mapAnchor(right('edit.ts', 10, 12), diff)).toEqual({
      kind: 'changed',
      anchor: right('edit.ts', 10, 12),
    });
  });

  it('sees lines deleted with nothing in their place as deleted', () => {
    expect(mapAnchor(right('delete.ts', 10, 12), diff)).toEqual({ kind: 'deleted' });
    expect(mapAnchor(right('delete.ts', 13, 14), diff)).toEqual({
      kind: 'moved',
      anchor: right('delete.ts', 10, 11),
    });
  });

  it('anchors rewritten lines on their replacement', () => {
    expect(mapAnchor(right('rewrite.ts', 10, 12), diff)).toEqual({
      kind: 'rewritten',
      anchor: right('rewrite.ts', 10, 11),
    });
  });

  it('treats a line inserted inside the range as a change, but not one just before or after it', () => {
    expect(mapAnchor(right('insert.ts', 10, 11), diff)).toEqual({
      kind: 'changed',
      anchor: right('insert.ts', 10, 12),
    });
    expect(mapAnchor(right('insert.ts', 11, 12), diff)).toEqual({
      kind: 'moved',
      anchor: right('insert.ts', 12, 13),
    });
    expect(mapAnchor(right('insert.ts', 9, 10), diff)).toEqual({
      kind: 'unchanged',
      anchor: right('insert.ts', 9, 10),
    });
  });

  it('follows a rename, for line and file-level anchors', () => {
    expect(mapAnchor(right('old-name.ts', 10, 12), diff)).toEqual({
      kind: 'moved',
      anchor: right('new-name.ts', 9, 11),
    });
    expect(mapAnchor(right('old-name.ts', null, null), diff)).toEqual({
      kind: 'moved',
      anchor: right('new-name.ts', null, null),
    });
  });

  it('sees every anchor of a deleted file as deleted', () => {
    expect(mapAnchor(right('removed.ts', 1, 3), diff)).toEqual({ kind: 'deleted' });
    expect(mapAnchor(right('removed.ts', null, null), diff)).toEqual({ kind: 'deleted' });
  });
});

describe('mapOldLine', () => {
  const [only] = parseUnifiedDiff(
    ['--- a/f', '+++ b/f', '@@ -5,0 +6,2 @@', '+x', '+y', '@@ -20,2 +22,0 @@', '-p', '-q', ''].join(
      '\n',
    ),
  );
  const hunks = only?.hunks ?? [];

  it('reads zero-length sides: an insertion after a line, a deletion before one', () => {
    expect([5, 6, 19, 20, 21, 22].map((line) => mapOldLine(line, hunks))).toEqual([
      5,
      8,
      21,
      null,
      null,
      22,
    ]);
  });
});
