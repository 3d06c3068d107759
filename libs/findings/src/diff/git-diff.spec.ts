import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

import { createGitRepo, type GitRepo } from '../testing/git-repo.js';
import { changedLineSet, findChangedFile, type ChangedLineSet } from './changed-lines.js';
import { parseUnifiedDiff, type DiffFile } from './unified-diff.js';

const numbered = (count: number, label = 'line'): string =>
  Array.from({ length: count }, (_, i) => `${label} ${i + 1}\n`).join('');

/** `numbered(count)` with some lines replaced (1-based) and others deleted. */
function edited(count: number, replace: Record<number, string>, drop: number[] = []): string {
  const rows: string[] = [];
  for (let i = 1; i <= count; i += 1) {
    if (drop.includes(i)) continue;
    rows.push(`${replace[i] ?? `line ${i}`}\n`);
  }
  return rows.join('');
}

describe('diffs made by real git', () => {
  let repo: GitRepo;
  let base: string;
  let head: string;
  let files: DiffFile[];
  let set: ChangedLineSet;

  beforeAll(() => {
    repo = createGitRepo();
    base = repo.commit('base', {
      'my file.txt': 'a\nb\nc\n',
      'é t.txt': 'keep\n',
      'quote"d.txt': 'q\n',
      'crlf.txt': 'x\r\ny\r\nz\r\n',
      'old name.txt': numbered(20),
      'image.bin': Buffer.from([0, 1, 2, 3, 0, 255]),
      'nonl.txt': 'no newline',
      'gone.txt': 'gone 1\ngone 2\n',
      'big.txt': numbered(60),
      'script.sh': 'echo hi\n',
    });
    repo.git('mv', 'old name.txt', 'new name.txt');
    chmodSync(join(repo.root, 'script.sh'), 0o755);
    head = repo.commit(
      'head',
      {
        'my file.txt': 'a\nB\nc\n',
        'é t.txt': 'keep\nmore\n',
        'quote"d.txt': 'q\nQ\n',
        'crlf.txt': 'x\r\nY\r\nz\r\n',
        'new name.txt': edited(20, { 18: 'line 18 edited' }),
        'image.bin': Buffer.from([0, 1, 2, 4, 0, 255]),
        'nonl.txt': 'no newline either',
        'added.txt': 'one\ntwo\n',
        'empty.txt': '',
        'big.txt': edited(60, { 5: 'line 5 edited' }, [40, 41, 42]),
      },
      ['gone.txt'],
    );
    files = parseUnifiedDiff(repo.diff(base, head));
    set = changedLineSet(files);
  });

  afterAll(() => repo.remove());

  it('sees every file once, by its name in the pull request', () => {
    expect(set.files.map((f) => f.path).sort()).toEqual(
      [
        'added.txt',
        'big.txt',
        'crlf.txt',
        'empty.txt',
        'gone.txt',
        'image.bin',
        'my file.txt',
        'new name.txt',
        'nonl.txt',
        'quote"d.txt',
        'script.sh',
        'é t.txt',
      ].sort(),
    );
  });

  it('reads names with spaces, quotes and non-ASCII characters', () => {
    expect(findChangedFile(set, 'my file.txt')?.added).toEqual([{ start: 2, end: 2 }]);
    expect(findChangedFile(set, 'é t.txt')?.added).toEqual([{ start: 2, end: 2 }]);
    expect(findChangedFile(set, 'quote"d.txt')?.added).toEqual([{ start: 2, end: 2 }]);
  });

  it('follows a rename with an edit: new path, old path kept, lines of each side', () => {
    const file = findChangedFile(set, 'new name.txt');
    expect(file).toMatchObject({ oldPath: 'old name.txt', status: 'renamed', binary: false });
    expect(file?.added).toEqual([{ start: 18, end: 18 }]);
    expect(file?.removed).toEqual([{ start: 18, end: 18 }]);
    expect(file?.hunks).toEqual([{ left: { start: 15, end: 20 }, right: { start: 15, end: 20 } }]);
  });

  it('gives an added file RIGHT lines only and a deleted file LEFT lines only', () => {
    expect(findChangedFile(set, 'added.txt')).toMatchObject({
      status: 'added',
      oldPath: null,
      added: [{ start: 1, end: 2 }],
      removed: [],
      hunks: [{ left: null, right: { start: 1, end: 2 } }],
    });
    expect(findChangedFile(set, 'gone.txt')).toMatchObject({
      status: 'deleted',
      added: [],
      removed: [{ start: 1, end: 2 }],
      hunks: [{ left: { start: 1, end: 2 }, right: null }],
    });
  });

  it('marks binary files and files without hunks (empty new file, mode change)', () => {
    expect(findChangedFile(set, 'image.bin')).toMatchObject({ binary: true, hunks: [] });
    expect(findChangedFile(set, 'empty.txt')).toMatchObject({ status: 'added', hunks: [] });
    const script = files.find((f) => f.newPath === 'script.sh');
    expect(script).toMatchObject({ oldMode: '100644', newMode: '100755', hunks: [] });
  });

  it('reads a change at the end of a file without a final newline', () => {
    const file = files.find((f) => f.newPath === 'nonl.txt');
    expect(file?.hunks[0]?.lines.map((l) => [l.kind, l.text])).toEqual([
      ['removed', 'no newline'],
      ['added', 'no newline either'],
    ]);
  });

  it('keeps the carriage return of a CRLF file as content and numbers its lines as usual', () => {
    const file = files.find((f) => f.newPath === 'crlf.txt');
    expect(file?.hunks[0]?.lines.map((l) => [l.kind, l.oldLine, l.newLine, l.text])).toEqual([
      ['context', 1, 1, 'x\r'],
      ['removed', 2, null, 'y\r'],
      ['added', null, 2, 'Y\r'],
      ['context', 3, 3, 'z\r'],
    ]);
  });

  it('keeps separate hunks apart and numbers a pure deletion on the LEFT', () => {
    const file = findChangedFile(set, 'big.txt');
    expect(file?.hunks).toEqual([
      { left: { start: 2, end: 8 }, right: { start: 2, end: 8 } },
      { left: { start: 37, end: 45 }, right: { start: 37, end: 42 } },
    ]);
    expect(file?.added).toEqual([{ start: 5, end: 5 }]);
    expect(file?.removed).toEqual([
      { start: 5, end: 5 },
      { start: 40, end: 42 },
    ]);
  });

  it('reads hunks with a zero-length side (no context: --unified=0)', () => {
    const zero = changedLineSet(repo.diff(base, head, '--unified=0'));
    expect(findChangedFile(zero, 'big.txt')?.hunks).toEqual([
      { left: { start: 5, end: 5 }, right: { start: 5, end: 5 } },
      { left: { start: 40, end: 42 }, right: null },
    ]);
    expect(findChangedFile(zero, 'é t.txt')?.hunks).toEqual([
      { left: null, right: { start: 2, end: 2 } },
    ]);
  });

  it('keeps each hunk text as git wrote it, header included', () => {
    const file = files.find((f) => f.newPath === 'my file.txt');
    expect(file?.hunks[0]?.text).toBe('@@ -1,3 +1,3 @@\n a\n-b\n+B\n c');
  });
});

describe('diffs made by real git: files without hunks', () => {
  let repo: GitRepo;
  afterAll(() => repo.remove());

  it('reads a pure rename of names with spaces, binary additions and deletions, and a type change', () => {
    repo = createGitRepo();
    const base = repo.commit('base', {
      'dir one/file one.txt': 'same\n',
      'old.bin': Buffer.from([0, 9, 9]),
      'link.txt': 'target\n',
    });
    mkdirSync(join(repo.root, 'dir two'));
    repo.git('mv', 'dir one/file one.txt', 'dir two/file two.txt');
    repo.git('rm', '--quiet', 'link.txt');
    symlinkSync('dir two/file two.txt', join(repo.root, 'link.txt'));
    const head = repo.commit('head', { 'new.bin': Buffer.from([0, 7, 7]) }, ['old.bin']);
    const files = parseUnifiedDiff(repo.diff(base, head));
    const byName = (name: string): DiffFile | undefined =>
      files.find((f) => (f.newPath ?? f.oldPath) === name);
    expect(byName('dir two/file two.txt')).toMatchObject({
      oldPath: 'dir one/file one.txt',
      status: 'renamed',
      similarity: 100,
      hunks: [],
    });
    expect(byName('new.bin')).toMatchObject({ status: 'added', binary: true, oldPath: null });
    expect(byName('old.bin')).toMatchObject({ status: 'deleted', binary: true, newPath: null });
    // A type change is a deletion and an addition of the same path; the set keeps one entry.
    expect(files.filter((f) => (f.newPath ?? f.oldPath) === 'link.txt')).toHaveLength(2);
    const link = findChangedFile(changedLineSet(files), 'link.txt');
    expect(link).toMatchObject({ removed: [{ start: 1, end: 1 }], added: [{ start: 1, end: 1 }] });
  });
});
