import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';

import { createTempRepo, type TempRepo } from '../testing/temp-repo.js';
import { sandboxBackend, toSandbox, toVirtual } from './sandbox-backend.js';

describe('sandboxBackend (deepagents over the ToolSandbox port)', () => {
  let repo: TempRepo;
  const now = () => new Date('2030-01-02T03:04:05Z');
  beforeEach(() => {
    repo = createTempRepo({ 'src/a.ts': 'one\ntwo\nthree\n', 'b.txt': 'x\nx\n' });
  });
  afterEach(() => repo.remove());

  const backend = () => sandboxBackend(repo.sandbox, { id: 'sbx-1', now });

  it('maps / to the repository root and back', () => {
    expect(toSandbox('/')).toBe('.');
    expect(toSandbox('/src/a.ts')).toBe('src/a.ts');
    expect(toVirtual('src/a.ts')).toBe('/src/a.ts');
  });

  it('lists, globs and greps with absolute virtual paths', async () => {
    const ls = await backend().ls('/src');
    expect(ls).toEqual({ files: [{ path: '/src/a.ts', is_dir: false, size: 14 }] });
    const glob = await backend().glob('**/*.ts', '/');
    expect(glob).toMatchObject({ files: [{ path: '/src/a.ts' }], truncated: false });
    const grep = await backend().grep('two', '/', null, null);
    expect(grep).toEqual({
      matches: [{ path: '/src/a.ts', line: 2, text: 'two' }],
      truncated: false,
    });
  });

  it('reads a 0-based window with pagination fields', async () => {
    expect(await backend().read('/src/a.ts', 1, 1)).toEqual({
      content: 'two',
      mimeType: 'text/plain',
      totalLines: 3,
      startLine: 2,
      endLine: 2,
      nextOffset: 2,
    });
    expect(await backend().readRaw('/b.txt')).toMatchObject({
      data: { content: 'x\nx\n', modified_at: '2030-01-02T03:04:05.000Z' },
    });
  });

  it('writes and edits, returning errors for missing and ambiguous matches', async () => {
    expect(await backend().write('/new/c.txt', 'c')).toEqual({
      path: '/new/c.txt',
      filesUpdate: null,
    });
    expect(readFileSync(join(repo.root, 'new/c.txt'), 'utf8')).toBe('c');
    expect(await backend().edit('/src/a.ts', 'two', '2')).toMatchObject({ occurrences: 1 });
    expect(await backend().edit('/b.txt', 'x', 'y')).toMatchObject({
      error: expect.stringContaining('appears 2 times'),
    });
    expect(await backend().edit('/b.txt', 'zzz', 'y')).toMatchObject({
      error: expect.stringContaining('not found'),
    });
    expect(await backend().read('/missing.txt')).toMatchObject({
      error: expect.stringContaining('does not exist'),
    });
  });

  it('executes commands in the repository', async () => {
    const result = await backend().execute('cat b.txt; exit 4');
    expect(result).toEqual({ output: 'x\nx\n', exitCode: 4, truncated: false });
    expect(backend().id).toBe('sbx-1');
  });
});
