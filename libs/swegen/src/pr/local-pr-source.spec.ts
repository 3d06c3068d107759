import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { swegenErrorReason } from '../errors/swegen-errors.js';
import { FixtureRepo } from '../testing/fixture-repo.js';
import { LocalPrSource } from './local-pr-source.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => Promise.all(cleanup.splice(0).map((f) => f())));

async function prFile(content: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'swegen-prjson-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'pr.json');
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function pull(base: string, head: string): Record<string, unknown> {
  return {
    number: 4,
    title: 'Rename',
    body: null,
    merged_at: '2026-01-01T00:00:00Z',
    created_at: '2026-01-01T00:00:00Z',
    html_url: 'h',
    base: {
      sha: base,
      ref: 'main',
      repo: { full_name: 'Acme/Lib', clone_url: 'https://github.com/Acme/Lib.git' },
    },
    head: { sha: head },
  };
}

describe('LocalPrSource', () => {
  it('derives the file list from the clone, a rename under its new name, sorted by path', async () => {
    const repo = FixtureRepo.create();
    cleanup.push(() => Promise.resolve(repo.remove()));
    const base = repo.commit('base', { 'lib/old.js': 'x\n'.repeat(30), 'z.js': '1\n' });
    const head = repo.commit(
      'change',
      { 'a.test.js': 't\n', 'z.js': null },
      { 'lib/old.js': 'lib/new.js' },
    );
    const source = await LocalPrSource.load(repo.path, await prFile(pull(base, head)));
    expect(await source.listFiles('acme/lib', 4)).toEqual([
      { filename: 'a.test.js', status: 'added' },
      { filename: 'lib/new.js', status: 'renamed', previousFilename: 'lib/old.js' },
      { filename: 'z.js', status: 'removed' },
    ]);
    expect(await source.getPullRequest('acme/lib', 4)).toMatchObject({
      merged: true,
      body: '',
      repo: 'Acme/Lib',
    });
    expect(await source.getIssue('acme/lib', 1)).toBeUndefined();
  });

  it('names the repository and number the PR file describes', async () => {
    const source = await LocalPrSource.load(
      '.',
      await prFile(pull('a'.repeat(40), 'b'.repeat(40))),
    );
    expect(source.identity).toEqual({ repo: 'Acme/Lib', pr: 4 });
  });

  it('refuses a file that is not a pull request, naming the field', async () => {
    const error = await LocalPrSource.load(
      '.',
      await prFile({ pull_request: { number: 'x' } }),
    ).catch((e: unknown) => e);
    expect(swegenErrorReason(error)).toBe('invalid_input');
    expect((error as Error).message).toMatch(/is not a pull request: pull_request\.number/);
    await expect(LocalPrSource.load('.', await prFile('{oops'))).rejects.toThrow(/is not JSON/);
  });

  it('refuses a PR number the file does not describe', async () => {
    const source = await LocalPrSource.load('.', await prFile(pull('b', 'h')));
    await expect(source.getPullRequest('acme/lib', 5)).rejects.toThrow(
      'the PR file describes Acme/Lib#4, not acme/lib#5',
    );
  });
});
