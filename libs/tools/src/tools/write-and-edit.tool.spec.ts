import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';

import { resolveToolOptions } from '../core/tool-options.js';
import { createTempRepo, type TempRepo } from '../testing/temp-repo.js';
import { editFileTool } from './edit-file.tool.js';
import { writeFileTool } from './write-file.tool.js';

describe('write_file', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = createTempRepo({ 'a.txt': 'old\n' });
  });
  afterEach(() => repo.remove());

  it('creates a file with its parent directories', async () => {
    const result = await writeFileTool(repo.sandbox).invoke({
      path: 'src/deep/new.ts',
      content: 'one\ntwo\n',
    });
    expect(result).toMatchObject({ ok: true, output: { created: true, lines: 2, bytes: 8 } });
    expect(result.observation).toBe('Created src/deep/new.ts (2 lines, 8 bytes).');
    expect(readFileSync(join(repo.root, 'src/deep/new.ts'), 'utf8')).toBe('one\ntwo\n');
  });

  it('overwrites an existing file and says so', async () => {
    const result = await writeFileTool(repo.sandbox).invoke({ path: 'a.txt', content: 'new' });
    expect(result.observation).toBe('Overwrote a.txt (1 lines, 3 bytes).');
    expect(readFileSync(join(repo.root, 'a.txt'), 'utf8')).toBe('new');
  });

  it('rejects a missing content argument', async () => {
    const result = await writeFileTool(repo.sandbox).invoke({ path: 'a.txt' });
    expect(result).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(result.observation).toContain('content:');
  });
});

describe('edit_file', () => {
  const source = ['function f() {', '\treturn 1;', '}', '', 'const x = 1;', 'const y = 1;', ''];
  let repo: TempRepo;
  beforeEach(() => {
    repo = createTempRepo({ 'f.ts': source.join('\n') });
  });
  afterEach(() => repo.remove());

  const edit = (input: Record<string, unknown>) =>
    editFileTool(repo.sandbox, resolveToolOptions()).invoke({ path: 'f.ts', ...input });
  const contents = () => readFileSync(join(repo.root, 'f.ts'), 'utf8');

  it('replaces a unique match, keeping tabs, and shows the edited region numbered', async () => {
    const result = await edit({ old_string: '\treturn 1;', new_string: '\treturn 2;' });
    expect(result).toMatchObject({ ok: true, output: { occurrences: 1, lines: [2] } });
    expect(contents()).toContain('\treturn 2;');
    expect(result.observation).toContain('     2\t\treturn 2;');
    expect(result.observation).toContain('     1\tfunction f() {');
  });

  it('refuses an ambiguous match, giving the count and the lines', async () => {
    const result = await edit({ old_string: '= 1;', new_string: '= 2;' });
    expect(result).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT', details: { occurrences: 2, lines: [5, 6] } },
    });
    expect(result.observation).toContain('appears 2 times');
    expect(result.observation).toContain('lines 5, 6');
    expect(contents()).toBe(source.join('\n'));
  });

  it('replaces every occurrence with replace_all', async () => {
    const result = await edit({ old_string: '= 1;', new_string: '= 2;', replace_all: true });
    expect(result).toMatchObject({ ok: true, output: { occurrences: 2 } });
    expect(contents()).toContain('const x = 2;\nconst y = 2;');
  });

  it('reports an absent match without touching the file', async () => {
    const result = await edit({ old_string: '    return 1;', new_string: 'x' });
    expect(result).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(result.observation).toContain('was not found in f.ts');
    expect(contents()).toBe(source.join('\n'));
  });

  it('refuses identical strings, an empty old_string and a missing file', async () => {
    expect(await edit({ old_string: 'x', new_string: 'x' })).toMatchObject({
      error: { code: 'BAD_REQUEST' },
    });
    expect(await edit({ old_string: '', new_string: 'x' })).toMatchObject({
      error: { code: 'BAD_REQUEST' },
    });
    expect(await edit({ path: 'missing.ts', old_string: 'a', new_string: 'b' })).toMatchObject({
      error: { code: 'NOT_FOUND' },
    });
  });
});
