import { access, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GitRunner } from '../git/git-runner.js';
import { swegenError } from '../errors/swegen-errors.js';

/** `<stateDir>/repos/<owner>/<name>`, lowercased. */
export function repoCachePath(stateDir: string, repo: string): string {
  const [owner = '', name = ''] = repo.toLowerCase().split('/');
  return join(stateDir, 'repos', owner, name);
}

/**
 * Whether `dir` holds a clone (`.git`), and whether it is a partial one (a promisor remote, as
 * `--filter=blob:none` leaves it).
 */
async function cloneKind(dir: string): Promise<'none' | 'partial' | 'full'> {
  const exists = await access(join(dir, '.git')).then(
    () => true,
    () => false,
  );
  if (!exists) return 'none';
  const git = new GitRunner(dir, 'git');
  const partial =
    (await git.succeeds(['config', '--get', 'extensions.partialClone'])) ||
    (await git.succeeds(['config', '--get', 'remote.origin.promisor']));
  return partial ? 'partial' : 'full';
}

/**
 * A full clone of the repository in the swegen cache that holds `commits`: cloned on first use,
 * then fetched from `origin` for any commit it lacks, `origin` being set to `url` first when the
 * cache was cloned from elsewhere. Never blobless: git abbreviates the blob
 * hashes of `index` lines by the number of objects it holds, so a blobless clone writes 7 hex
 * digits where a full one (and the original SWE-gen) writes 8 or more, and bug.patch/fix.patch
 * would differ. A blobless cache left by an older version is cloned again, in full. `signal`
 * kills a clone or fetch in flight.
 */
export async function ensureCachedRepo(
  stateDir: string,
  repo: string,
  url: string,
  commits: readonly string[],
  signal?: AbortSignal,
): Promise<GitRunner> {
  const options = signal ? { signal } : {};
  const dir = repoCachePath(stateDir, repo);
  const kind = await cloneKind(dir);
  if (kind === 'partial') await rm(dir, { recursive: true, force: true });
  if (kind !== 'full') {
    await mkdir(dirname(dir), { recursive: true });
    await new GitRunner(dirname(dir), 'git', options).bytes([
      'clone',
      '--quiet',
      '--no-checkout',
      url,
      dir,
    ]);
  }
  const git = new GitRunner(dir, 'git', options);
  // The cache follows the repository it is given (another --repo-path, a moved remote).
  if ((await git.text(['remote', 'get-url', 'origin'])).trim() !== url) {
    await git.bytes(['remote', 'set-url', 'origin', url]);
  }
  for (const sha of commits) {
    if (await git.succeeds(['cat-file', '-e', `${sha}^{commit}`])) continue;
    const fetched = await git.succeeds(['fetch', '--quiet', 'origin', sha]);
    if (!fetched) await git.bytes(['fetch', '--quiet', '--all']);
    if (!(await git.succeeds(['cat-file', '-e', `${sha}^{commit}`]))) {
      throw swegenError('git_failed', `commit ${sha} of ${repo} cannot be fetched from ${url}`);
    }
  }
  return git;
}
