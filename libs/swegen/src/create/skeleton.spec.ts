import { describe, expect, it } from '@jest/globals';
import { tomlNumbers } from '../validate/task-config.js';
import { SOLVE_SH, skeletonDockerfile, skeletonTestSh, taskToml } from './skeleton.js';

describe('skeleton writers', () => {
  it('copies each test file back with one mkdir and one cp, in order, root files under "."', () => {
    const sh = skeletonTestSh([
      { repoPath: 'test/a.test.js', taskPath: 'a.test.js' },
      { repoPath: 'test/fixtures/x.json', taskPath: 'fixtures/x.json' },
      { repoPath: 'root_test.go', taskPath: 'root_test.go' },
    ]);
    expect(sh).toContain(
      'mkdir -p "test"\ncp "/tests/a.test.js" "test/a.test.js"\nmkdir -p "test/fixtures"\ncp "/tests/fixtures/x.json" "test/fixtures/x.json"\nmkdir -p "."\ncp "/tests/root_test.go" "root_test.go"\n',
    );
    expect(sh).toMatch(/\nfalse\ntest_status=\$\?\n/);
    expect(sh).toContain('echo 1 > /logs/verifier/reward.txt');
  });

  it('fetches the PR head, not the merge commit, and applies bug.patch after the reset', () => {
    const dockerfile = skeletonDockerfile({
      cloneUrl: 'https://github.com/a/b.git',
      headSha: 'f00d',
      prNumber: 12,
    });
    expect(dockerfile).toContain(
      'git fetch --depth 1 origin f00d || git fetch --depth 1 origin "+refs/pull/12/head:refs/remotes/origin/pr/12"',
    );
    expect(dockerfile.indexOf('RUN git reset --hard')).toBeLessThan(
      dockerfile.indexOf('RUN patch -p1 < /tmp/bug.patch'),
    );
  });

  it('writes solve.sh byte for byte and a task.toml with no network at run time', () => {
    expect(SOLVE_SH).toBe(
      '#!/bin/bash\n\nset -euo pipefail\ncd /app/src\n\npatch -p1 < /solution/fix.patch\n',
    );
    const toml = taskToml({
      difficulty: 'easy',
      category: 'bugfix',
      tags: ['a', 'b "q"', 'c'],
      sourceRepo: 'a/b',
      sourcePr: 3,
      baseSha: 'b',
      headSha: 'h',
    });
    expect(toml).toContain('tags = ["a", "b \\"q\\"", "c"]');
    expect(toml).toContain('network_mode = "no-network"');
    expect(tomlNumbers(toml).get('verifier.timeout_sec')).toBe(600);
  });
});
