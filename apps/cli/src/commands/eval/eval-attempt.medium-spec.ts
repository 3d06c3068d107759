import { hostGit } from '@caravel/sandbox';
import type { BuiltEnvironment } from '@caravel/swegen';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseRepository, patchedCopy } from './eval-attempt.js';

/**
 * A task's build runs the task's and its repository's code (in a sandbox), and what it writes
 * under /app is what the attempt's host git then works in: a `.git` left there must not make
 * host git run anything.
 */
describe('an eval attempt’s host git over the tree a task build wrote', () => {
  let dir: string;
  let environment: BuiltEnvironment;
  let marker: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-eval-attempt-'));
    marker = join(dir, 'ran-on-the-host');
    const src = join(dir, 'env', 'app', 'src');
    await mkdir(src, { recursive: true });
    await writeFile(join(src, 'a.txt'), 'one\n');
    await writeFile(join(src, '.gitattributes'), '* filter=planted\n');
    // What a build step can leave: a repository whose config names a filter driver.
    await hostGit(src, ['init', '--quiet']);
    await hostGit(src, ['config', 'filter.planted.clean', `touch ${marker}; cat`]);
    await hostGit(src, ['config', 'filter.planted.smudge', `touch ${marker}; cat`]);
    environment = {
      appDir: join(dir, 'env', 'app'),
      workdir: '/app/src',
      logFile: join(dir, 'build.log'),
    };
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('proves the planted driver live: host git in that tree runs it', async () => {
    await hostGit(join(environment.appDir, 'src'), ['add', '-A']);
    expect(existsSync(marker)).toBe(true);
  });

  it('makes the base repository without running anything the build left in .git', async () => {
    const repo = join(dir, 'repo');
    await mkdir(repo);
    await baseRepository(environment, repo);
    expect(existsSync(marker)).toBe(false);
    expect(await hostGit(repo, ['log', '--format=%s'])).toBe('Task base');
    expect(await hostGit(repo, ['show', 'HEAD:a.txt'])).toBe('one');
  });

  it('applies the patch to a copy without running anything the build left in .git', async () => {
    const patch = join(dir, 'patch.diff');
    await writeFile(patch, '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n');
    const app = join(dir, 'graded');
    await patchedCopy(environment, app, patch);
    expect(existsSync(marker)).toBe(false);
    expect(await readFile(join(app, 'src', 'a.txt'), 'utf8')).toBe('two\n');
    expect(existsSync(join(app, 'src', '.git'))).toBe(false);
  });
});
