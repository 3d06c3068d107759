import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';

import { resolveToolOptions } from '../core/tool-options.js';
import { createTempRepo, type TempRepo } from '../testing/temp-repo.js';
import { globTool } from './glob.tool.js';
import { grepTool } from './grep.tool.js';
import { lsTool } from './ls.tool.js';

describe('ls, glob and grep', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = createTempRepo({
      'README.md': 'Caravel\n',
      'src/a.ts': 'export const a = 1;\n// TODO: tidy\n',
      'src/nested/b.ts': 'export const B = 2; // todo later\n',
      'src/c.js': 'todo\n',
    });
  });
  afterEach(() => repo.remove());

  const options = (overrides = {}) => resolveToolOptions(overrides);

  it('ls lists directories first, marked with a slash', async () => {
    const result = await lsTool(repo.sandbox, options()).invoke({ path: 'src' });
    expect(result.observation).toBe('nested/\na.ts\nc.js');
    const root = await lsTool(repo.sandbox, options()).invoke({});
    expect(root.observation).toContain('.git/');
  });

  it('ls caps a long listing and says how many were left out', async () => {
    const result = await lsTool(repo.sandbox, options({ maxListEntries: 1 })).invoke({
      path: 'src',
    });
    expect(result).toMatchObject({ ok: true, output: { omitted: 2 } });
    expect(result.observation).toContain('(2 more entries not shown');
  });

  it('ls reports a missing directory', async () => {
    const result = await lsTool(repo.sandbox, options()).invoke({ path: 'nope' });
    expect(result).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });

  it('glob matches across directories with ** and returns sorted paths', async () => {
    const result = await globTool(repo.sandbox, options()).invoke({ pattern: 'src/**/*.ts' });
    expect(result).toMatchObject({ output: { paths: ['src/a.ts', 'src/nested/b.ts'] } });
    const under = await globTool(repo.sandbox, options()).invoke({
      pattern: '*.{ts,js}',
      path: 'src',
    });
    expect(under).toMatchObject({ output: { paths: ['src/a.ts', 'src/c.js'] } });
  });

  it('glob says when nothing matches and when it stopped early', async () => {
    const none = await globTool(repo.sandbox, options()).invoke({ pattern: '*.py' });
    expect(none.observation).toBe('No files match *.py.');
    const capped = await globTool(repo.sandbox, options({ maxListEntries: 1 })).invoke({
      pattern: '**/*',
    });
    expect(capped).toMatchObject({ output: { truncated: true } });
    expect(capped.observation).toContain('Narrow the pattern');
  });

  it('grep finds literal text by default and reports path:line: text', async () => {
    const result = await grepTool(repo.sandbox, options()).invoke({ pattern: 'TODO' });
    expect(result.observation).toBe('src/a.ts:2: // TODO: tidy');
  });

  it('grep honours ignore_case, regex and include', async () => {
    const grep = grepTool(repo.sandbox, options());
    const any = await grep.invoke({ pattern: 'todo', ignore_case: true, include: '*.ts' });
    expect(any).toMatchObject({
      output: {
        matches: [
          { path: 'src/a.ts', line: 2 },
          { path: 'src/nested/b.ts', line: 1 },
        ],
      },
    });
    const regex = await grep.invoke({ pattern: 'const [A-Z] =', regex: true });
    expect(regex.observation).toBe('src/nested/b.ts:1: export const B = 2; // todo later');
  });

  it('grep caps matches and says so', async () => {
    const result = await grepTool(repo.sandbox, options({ maxGrepMatches: 1 })).invoke({
      pattern: 'o',
    });
    expect(result).toMatchObject({ output: { truncated: true } });
    expect(result.observation).toContain('only the first 1 are shown');
  });

  it('rejects bad arguments', async () => {
    expect(await grepTool(repo.sandbox, options()).invoke({ pattern: '' })).toMatchObject({
      ok: false,
      error: { code: 'BAD_REQUEST' },
    });
    expect(await globTool(repo.sandbox, options()).invoke({ pattern: 7 })).toMatchObject({
      ok: false,
      error: { code: 'BAD_REQUEST' },
    });
  });
});
