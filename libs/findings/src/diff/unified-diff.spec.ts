import { describe, expect, it } from '@jest/globals';

import { findingsErrorReason } from '../findings.errors.js';
import { parseUnifiedDiff } from './unified-diff.js';

const lines = (...rows: string[]): string => rows.join('\n');

describe('parseUnifiedDiff (hand-written diffs)', () => {
  it('numbers context, added and removed lines on each side', () => {
    const [file] = parseUnifiedDiff(
      lines(
        'diff --git a/src/a.ts b/src/a.ts',
        'index 1111111..2222222 100644',
        '--- a/src/a.ts',
        '+++ b/src/a.ts',
        '@@ -3,4 +3,5 @@ function main() {',
        ' keep',
        '-old',
        '+new',
        '+more',
        ' keep2',
        ' keep3',
        '',
      ),
    );
    expect(file).toMatchObject({ oldPath: 'src/a.ts', newPath: 'src/a.ts', status: 'modified' });
    expect(file?.hunks[0]).toMatchObject({
      oldStart: 3,
      oldLines: 4,
      newStart: 3,
      newLines: 5,
      section: 'function main() {',
    });
    expect(file?.hunks[0]?.lines.map((l) => [l.kind, l.oldLine, l.newLine])).toEqual([
      ['context', 3, 3],
      ['removed', 4, null],
      ['added', null, 4],
      ['added', null, 5],
      ['context', 5, 6],
      ['context', 6, 7],
    ]);
  });

  it('reads hunk bodies by their counts, so content shaped like headers stays content', () => {
    const files = parseUnifiedDiff(
      lines(
        'diff --git a/notes.md b/notes.md',
        '--- a/notes.md',
        '+++ b/notes.md',
        '@@ -1,2 +1,3 @@',
        '--- a/not-a-file',
        '+++ b/not-a-file',
        ' diff --git a/x b/x',
        '+@@ -1 +1 @@',
        '',
      ),
    );
    expect(files).toHaveLength(1);
    expect(files[0]?.hunks[0]?.lines.map((l) => [l.kind, l.text])).toEqual([
      ['removed', '-- a/not-a-file'],
      ['added', '++ b/not-a-file'],
      ['context', 'diff --git a/x b/x'],
      ['added', '@@ -1 +1 @@'],
    ]);
  });

  it('reads a diff whose every line ends in CRLF', () => {
    const text = lines(
      'diff --git a/w.txt b/w.txt',
      'index 1111111..2222222 100644',
      '--- a/w.txt',
      '+++ b/w.txt',
      '@@ -1,3 +1,3 @@',
      ' a',
      '',
      '-b',
      '+B',
      '\\ No newline at end of file',
      '',
    ).replace(/\n/g, '\r\n');
    const [file] = parseUnifiedDiff(text);
    expect(file?.newPath).toBe('w.txt');
    expect(file?.hunks[0]?.lines.map((l) => [l.kind, l.oldLine, l.newLine])).toEqual([
      ['context', 1, 1],
      ['context', 2, 2],
      ['removed', 3, null],
      ['added', null, 3],
    ]);
  });

  it('reads a plain unified diff without diff --git lines, with timestamps after the names', () => {
    const files = parseUnifiedDiff(
      lines(
        '--- old/readme.txt\t2026-01-01 10:00:00.000000000 +0000',
        '+++ new/readme.txt\t2026-01-02 10:00:00.000000000 +0000',
        '@@ -1 +1,2 @@',
        ' hello',
        '+world',
        '--- /dev/null',
        '+++ new/added.txt',
        '@@ -0,0 +1 @@',
        '+x',
        '',
      ),
      { prefixes: ['old/', 'new/'] },
    );
    expect(files.map((f) => [f.oldPath, f.newPath, f.status])).toEqual([
      ['readme.txt', 'readme.txt', 'modified'],
      [null, 'added.txt', 'added'],
    ]);
  });

  it('skips text around the diff, such as a commit message and a patch signature', () => {
    const files = parseUnifiedDiff(
      lines(
        'From 1234 Mon Sep 17 00:00:00 2001',
        'Subject: [PATCH] fix',
        '',
        '@@ not a hunk before any file @@',
        'diff --git a/a b/a',
        '--- a/a',
        '+++ b/a',
        '@@ -1 +1 @@',
        '-x',
        '+y',
        '-- ',
        '2.43.0',
        '',
      ),
    );
    expect(files).toHaveLength(1);
    expect(files[0]?.hunks).toHaveLength(1);
  });

  it('refuses a hunk shorter than its header says, naming the line', () => {
    const text = lines('--- a/a', '+++ b/a', '@@ -1,3 +1,3 @@', ' x', '-y');
    expect(() => parseUnifiedDiff(text)).toThrow('a hunk shorter than its header says');
    try {
      parseUnifiedDiff(text);
    } catch (error) {
      expect(findingsErrorReason(error)).toBe('diff_malformed');
    }
  });

  it('refuses a line that does not fit the counts', () => {
    const text = lines('--- a/a', '+++ b/a', '@@ -1 +1 @@', '-x', '-y', '+z');
    expect(() => parseUnifiedDiff(text)).toThrow('at line 5');
  });

  it('refuses a combined merge diff', () => {
    expect(() => parseUnifiedDiff('diff --cc file.txt\nindex 1,2..3\n')).toThrow('combined');
  });
});
