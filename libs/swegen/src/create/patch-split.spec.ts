import { afterEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { GitRunner } from '../git/git-runner.js';
import { FixtureRepo } from '../testing/fixture-repo.js';
import { splitPatches } from './patch-split.js';

const repos: FixtureRepo[] = [];
afterEach(() => repos.splice(0).forEach((r) => r.remove()));

function newRepo(): FixtureRepo {
  const repo = FixtureRepo.create();
  repos.push(repo);
  return repo;
}

/** The PR file list as GitHub's API gives it: renames under their new name, sorted by path. */
function apiFiles(repo: FixtureRepo, base: string, head: string): string[] {
  return repo.git('diff', '--name-only', base, head).split('\n').filter(Boolean);
}

function git(repo: FixtureRepo, ...args: string[]): Buffer {
  return execFileSync('git', ['-c', 'core.quotepath=false', ...args], { cwd: repo.path });
}

describe('splitPatches', () => {
  it('reverts every file in bug.patch, keeps tests out of fix.patch and extracts them from head', async () => {
    const repo = newRepo();
    const base = repo.commit('base', {
      'src/a.js': 'a1\n',
      'src/b.js': 'b1\n',
      'test/helpers/setup.js': 'setup1\n',
      'test/fixtures/input.json': '{"v":1}\n',
    });
    const head = repo.commit('fix', {
      'src/a.js': 'a2\n',
      'src/b.js': 'b2\n',
      'test/helpers/setup.js': 'setup2\n',
      'test/fixtures/input.json': '{"v":2}\n',
      'test/a.test.js': 'test a\n',
      'dist/a.min.js': 'min\n',
    });
    const split = await splitPatches({
      git: new GitRunner(repo.path),
      baseSha: base,
      headSha: head,
      prFiles: apiFiles(repo, base, head),
    });
    expect(split.sourceFiles).toEqual(['src/a.js', 'src/b.js']);
    expect(split.fixPatch.equals(git(repo, 'diff', base, head, '--', 'src/a.js', 'src/b.js'))).toBe(
      true,
    );
    expect(split.bugPatch.equals(git(repo, 'diff', head, base))).toBe(true);
    expect(split.bugPatch.toString()).toContain('test/helpers/setup.js');
    expect(split.fixPatch.toString()).not.toContain('test/');
    expect(split.testFiles.map((t) => [t.repoPath, t.taskPath, t.content.toString()])).toEqual([
      ['test/a.test.js', 'a.test.js', 'test a\n'],
      ['test/fixtures/input.json', 'fixtures/input.json', '{"v":2}\n'],
      ['test/helpers/setup.js', 'helpers/setup.js', 'setup2\n'],
    ]);
  });

  it('starts from the merge-base when main moved on after the fork point', async () => {
    const repo = newRepo();
    const fork = repo.commit('fork point', { 'src/a.js': 'a1\n', 'src/c.js': 'c1\n' });
    repo.branch('feature');
    const head = repo.commit('fix', { 'src/a.js': 'a2\n', 'test/a.test.js': 't\n' });
    repo.checkout('main');
    const moved = repo.commit('unrelated work on main', { 'src/c.js': 'c2\n' });
    const split = await splitPatches({
      git: new GitRunner(repo.path),
      baseSha: moved,
      headSha: head,
      prFiles: ['src/a.js', 'test/a.test.js'],
    });
    expect(split.base).toBe(fork);
    expect(split.changedFiles).toEqual(['src/a.js', 'test/a.test.js']);
    expect(split.bugPatch.toString()).not.toContain('src/c.js');
  });

  it('shows a renamed source as a new file in fix.patch and as a rename back in bug.patch', async () => {
    const repo = newRepo();
    const base = repo.commit('base', { 'lib/old-name.js': 'module.exports = 1;\n'.repeat(20) });
    const head = repo.commit(
      'rename',
      { 'lib/new-name.js': 'module.exports = 1;\n'.repeat(19) + 'module.exports = 2;\n' },
      { 'lib/old-name.js': 'lib/new-name.js' },
    );
    const split = await splitPatches({
      git: new GitRunner(repo.path),
      baseSha: base,
      headSha: head,
      prFiles: ['lib/new-name.js'],
    });
    expect(split.changedFiles).toEqual(['lib/new-name.js']);
    expect(split.fixPatch.toString()).toContain('new file mode');
    expect(split.fixPatch.toString()).not.toContain('old-name');
    expect(split.bugPatch.toString()).toContain(
      'rename from lib/new-name.js\nrename to lib/old-name.js',
    );
  });

  it('drops a deleted test from the extracted tests while bug.patch restores it', async () => {
    const repo = newRepo();
    const base = repo.commit('base', {
      'src/a.js': '1\n',
      'test/gone.test.js': 'old\n',
      'test/kept.test.js': 'k1\n',
    });
    const head = repo.commit('fix', {
      'src/a.js': '2\n',
      'test/gone.test.js': null,
      'test/kept.test.js': 'k2\n',
    });
    const split = await splitPatches({
      git: new GitRunner(repo.path),
      baseSha: base,
      headSha: head,
      prFiles: apiFiles(repo, base, head),
    });
    expect(split.testFiles.map((t) => t.repoPath)).toEqual(['test/kept.test.js']);
    expect(split.bugPatch.toString()).toContain('+++ b/test/gone.test.js');
  });

  it('keeps root-level names such as build.rs and binding/ as source, but not dist/', async () => {
    const repo = newRepo();
    const base = repo.commit('base', {
      'build.rs': 'a\n',
      'binding/x.go': 'a\n',
      'dist/x.js': 'a\n',
    });
    const head = repo.commit('fix', {
      'build.rs': 'b\n',
      'binding/x.go': 'b\n',
      'dist/x.js': 'b\n',
    });
    const files = apiFiles(repo, base, head);
    const split = await splitPatches({
      git: new GitRunner(repo.path),
      baseSha: base,
      headSha: head,
      prFiles: files,
    });
    expect(split.sourceFiles).toEqual(['binding/x.go', 'build.rs']);
    const compat = await splitPatches({
      git: new GitRunner(repo.path),
      baseSha: base,
      headSha: head,
      prFiles: files,
      compat: 'swegen-0.1',
    });
    expect(compat.sourceFiles).toEqual([]);
    expect(compat.fixPatch.length).toBe(0);
  });

  it('handles more than 30 changed files and non-ASCII paths byte for byte', async () => {
    const repo = newRepo();
    const before: Record<string, string> = { 'src/café.js': 'x\n' };
    const after: Record<string, string> = { 'src/café.js': 'y\n' };
    for (let i = 0; i < 40; i += 1) {
      before[`src/m${String(i).padStart(2, '0')}.js`] = `v1 ${i}\n`;
      after[`src/m${String(i).padStart(2, '0')}.js`] = `v2 ${i}\n`;
      after[`test/t${String(i).padStart(2, '0')}.test.js`] = `t ${i}\n`;
    }
    const base = repo.commit('base', before);
    const head = repo.commit('fix', after);
    const split = await splitPatches({
      git: new GitRunner(repo.path),
      baseSha: base,
      headSha: head,
      prFiles: apiFiles(repo, base, head),
    });
    expect(split.sourceFiles).toHaveLength(41);
    expect(split.testFiles).toHaveLength(40);
    expect(split.fixPatch.equals(git(repo, 'diff', base, head, '--', ...split.sourceFiles))).toBe(
      true,
    );
    expect(split.fixPatch.toString()).toContain('src/café.js');
  });
});
