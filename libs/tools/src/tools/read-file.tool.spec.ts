import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';

import { resolveToolOptions } from '../core/tool-options.js';
import { createTempRepo, type TempRepo } from '../testing/temp-repo.js';
import { readFileTool } from './read-file.tool.js';

const tenLines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('read_file', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = createTempRepo({ 'ten.txt': tenLines, 'empty.txt': '', 'long.txt': 'y'.repeat(50) });
  });
  afterEach(() => repo.remove());

  const tool = (overrides = {}) =>
    readFileTool(repo.sandbox, resolveToolOptions({ defaultReadLines: 4, ...overrides }));

  it('shows the first window numbered like cat -n, with the total and how to continue', async () => {
    const result = await tool().invoke({ path: 'ten.txt' });
    expect(result.observation).toBe(
      [
        '[File: ten.txt (10 lines total)]',
        '     1\tline 1',
        '     2\tline 2',
        '     3\tline 3',
        '     4\tline 4',
        '(6 more lines below; continue with offset=5)',
      ].join('\n'),
    );
    expect(result).toMatchObject({ ok: true, output: { startLine: 1, endLine: 4, nextOffset: 5 } });
  });

  it('reads a window from offset with limit, noting the lines above', async () => {
    const result = await tool().invoke({ path: 'ten.txt', offset: 8, limit: 5 });
    expect(result.observation).toBe(
      [
        '[File: ten.txt (10 lines total)]',
        '(7 more lines above)',
        '     8\tline 8',
        '     9\tline 9',
        '    10\tline 10',
      ].join('\n'),
    );
    expect(result).toMatchObject({ output: { endLine: 10, nextOffset: null } });
  });

  it('ends the window early at the character budget', async () => {
    const result = await tool({ maxReadChars: 30 }).invoke({ path: 'ten.txt', limit: 10 });
    expect(result).toMatchObject({ output: { startLine: 1, endLine: 2, nextOffset: 3 } });
  });

  it('cuts very long lines and says how much was cut', async () => {
    const result = await tool({ maxLineChars: 20 }).invoke({ path: 'long.txt' });
    expect(result.observation).toContain(`${'y'.repeat(20)}… [line cut: 30 more characters]`);
  });

  it('says when a file is empty', async () => {
    const result = await tool().invoke({ path: 'empty.txt' });
    expect(result.observation).toBe('[File: empty.txt (0 lines total)]\n(the file is empty)');
  });

  it('refuses an offset past the end, naming the file length', async () => {
    const result = await tool().invoke({ path: 'ten.txt', offset: 11 });
    expect(result).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(result.observation).toContain('has 10 lines');
  });

  it('reports a missing file, a directory and a path outside the sandbox as errors', async () => {
    expect(await tool().invoke({ path: 'nope.txt' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND' },
    });
    expect(await tool().invoke({ path: '.' })).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    expect(await tool().invoke({ path: '../../etc/passwd' })).toMatchObject({
      error: { code: 'FORBIDDEN' },
    });
  });

  it('rejects bad arguments with a clear message', async () => {
    const result = await tool().invoke({ path: 'ten.txt', offset: 0, limit: 'all' });
    expect(result).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(result.observation).toContain('offset:');
    expect(result.observation).toContain('limit:');
  });
});
