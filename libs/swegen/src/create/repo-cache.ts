import { access, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GitRunner } from '../git/git-runner.js';
import { swegenError } from '../errors/swegen-errors.js';

/** `<stateDir>/repos/<owner>/<name>`, lowercased. */
export function repoCachePath(stateDir: string, repo: string): string {
  const [owner = '', name = ''] = repo.toLowerCase().split('/');
  return join(stateDir, 'repos', owner, name);
}

/**
 * A clone of the repository in the swegen cache that holds `commits`: cloned on first use (a
 * blobless clone of a remote, a plain clone of a local path), then fetched from `origin` for any
 * commit it lacks. `signal` kills a clone or fetch in flight.
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
  if (
    !(await access(join(dir, '.git')).then(
      () => true,
      () => false,
    ))
  ) {
    await mkdir(dirname(dir), { recursive: true });
    const filter = /^(https?|ssh|git):\/\//.test(url) ? ['--filter=blob:none'] : [];
    await new GitRunner(dirname(dir), 'git', options).bytes([
      'clone',
      '--quiet',
      '--no-checkout',
      ...filter,
      url,
      dir,
    ]);
  }
  const git = new GitRunner(dir, 'git', options);
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
