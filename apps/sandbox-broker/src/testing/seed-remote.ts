import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Git on the host, whoever owns the directory (sandbox workdirs belong to the sandbox uid). */
export const hostGit = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' }).trim();

/**
 * A bare `<root>/<owner>/<name>.git` with one commit (README.md) on main, accepting pushes over
 * smart HTTP: what `FakeGitHub` serves for that repository when given `root`.
 */
export async function seedRemote(root: string, fullName = 'acme/widgets'): Promise<string> {
  const bare = join(root, `${fullName}.git`);
  await mkdir(bare, { recursive: true });
  hostGit(bare, 'init', '--quiet', '--bare', '--initial-branch=main');
  hostGit(bare, 'config', 'http.receivepack', 'true');
  const seed = await mkdtemp(join(tmpdir(), 'caravel-seed-'));
  hostGit(seed, 'init', '--quiet', '--initial-branch=main');
  await writeFile(join(seed, 'README.md'), 'widgets\n');
  hostGit(seed, 'add', '.');
  hostGit(seed, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'seed');
  hostGit(seed, 'push', '--quiet', bare, 'main');
  await rm(seed, { recursive: true, force: true });
  return bare;
}
