import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { GitRunner } from '../git/git-runner.js';
import { FIXTURE_GIT_ENV } from '../testing/fixture-repo.js';
import { splitPatches, type PatchSplit } from './patch-split.js';
import { ensureCachedRepo, repoCachePath } from './repo-cache.js';

/**
 * Past 2^14 objects a full clone abbreviates blob hashes to 8 hex digits; a blobless clone of
 * the same history holds only commits and trees, so it stays at 7.
 */
const FILLER_FILES = 17_000;

function git(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', args, {
    cwd,
    env: FIXTURE_GIT_ENV,
    input,
    maxBuffer: 64 << 20,
  }).toString();
}

/** A `git fast-import` stream: a base commit with many small files, then the PR's head. */
function history(): string {
  const file = (path: string, content: string) =>
    `M 100644 inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}\n`;
  const commit = (ref: string, when: number, message: string, body: string, parent?: string) =>
    [
      `commit ${ref}`,
      `mark :${when}`,
      `committer Fixture <fixture@example.test> ${1_700_000_000 + when} +0000`,
      `data ${message.length}`,
      message,
      ...(parent ? [`from ${parent}`] : []),
      body,
    ].join('\n');
  const filler = Array.from({ length: FILLER_FILES }, (_, i) => file(`data/f${i}.txt`, `${i}\n`));
  const base = commit(
    'refs/heads/main',
    1,
    'base',
    [
      ...filler,
      file('src/calc.py', 'def division(a, b)\n    return a / b\n'),
      file('tests/test_calc.py', 'from src.calc import division\n'),
    ].join(''),
  );
  const head = commit(
    'refs/heads/fix',
    2,
    'fix',
    [
      file('src/calc.py', 'def division(a, b):\n    return a / b\n'),
      file('tests/test_calc.py', 'from src.calc import division\n\nassert division(4, 2) == 2\n'),
    ].join(''),
    ':1',
  );
  return `${base}\n${head}\ndone\n`;
}

async function split(runner: GitRunner, origin: string): Promise<PatchSplit> {
  return splitPatches({
    git: runner,
    baseSha: git(origin, ['rev-parse', 'main']).trim(),
    headSha: git(origin, ['rev-parse', 'fix']).trim(),
    prFiles: ['src/calc.py', 'tests/test_calc.py'],
  });
}

describe('the repository cache', () => {
  let scratch: string;
  let origin: string;
  let url: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'swegen-cache-'));
    origin = join(scratch, 'origin');
    mkdirSync(origin);
    git(origin, ['init', '--quiet', '--initial-branch=main']);
    git(origin, ['fast-import', '--quiet', '--done'], history());
    git(origin, ['config', 'uploadpack.allowFilter', 'true']);
    git(origin, ['config', 'uploadpack.allowAnySHA1InWant', 'true']);
    url = `file://${origin}`;
  });

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it("writes a blobless cache's patches with the same bytes (index abbreviation included) as a full clone's", async () => {
    const full = join(scratch, 'full');
    git(scratch, ['clone', '--quiet', '--no-checkout', url, full]);
    const expected = await split(new GitRunner(full, 'git'), origin);
    expect(expected.fixPatch.toString()).toMatch(/^index [0-9a-f]{8}\.\.[0-9a-f]{8} 100644$/m);

    const stateDir = join(scratch, 'state');
    const cache = repoCachePath(stateDir, 'acme/calc');
    mkdirSync(dirname(cache), { recursive: true });
    git(scratch, ['clone', '--quiet', '--no-checkout', '--filter=blob:none', url, cache]);
    const blobless = await split(new GitRunner(cache, 'git'), origin);
    // What an older cache gave: 7 hex digits, so bug.patch and fix.patch differed.
    expect(blobless.fixPatch.equals(expected.fixPatch)).toBe(false);

    const heads = [expected.base, expected.head];
    const cached = await ensureCachedRepo(stateDir, 'acme/calc', url, heads);
    const actual = await split(cached, origin);
    expect(actual.fixPatch.equals(expected.fixPatch)).toBe(true);
    expect(actual.bugPatch.equals(expected.bugPatch)).toBe(true);
    expect(await cached.succeeds(['config', '--get', 'remote.origin.promisor'])).toBe(false);
  });

  it('follows the repository it is given when the cache was cloned from another one', async () => {
    const stateDir = join(scratch, 'moved-state');
    const elsewhere = join(scratch, 'elsewhere');
    git(scratch, ['clone', '--quiet', '--bare', origin, elsewhere]);
    await ensureCachedRepo(stateDir, 'acme/moved', elsewhere, []);
    // A commit only the repository given now holds.
    const later = git(origin, [
      'commit-tree',
      '-p',
      'fix',
      '-m',
      'later',
      `${git(origin, ['rev-parse', 'fix']).trim()}^{tree}`,
    ]).trim();
    git(origin, ['update-ref', 'refs/heads/later', later]);
    const cached = await ensureCachedRepo(stateDir, 'acme/moved', url, [later]);
    expect(await cached.succeeds(['cat-file', '-e', `${later}^{commit}`])).toBe(true);
    expect((await cached.text(['remote', 'get-url', 'origin'])).trim()).toBe(url);
  });
});
