import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostGit } from '../git/host-git.js';

/**
 * A bare `<root>/<owner>/<name>.git` with one commit (`README.md` holding `readme`) on main,
 * accepting pushes over smart HTTP: what `FakeGitHub` serves for that repository when given
 * `root`. Returns the bare repository's path.
 */
export async function seedRemote(
  root: string,
  fullName = 'acme/widgets',
  readme = 'widgets\n',
): Promise<string> {
  const bare = join(root, `${fullName}.git`);
  await mkdir(bare, { recursive: true });
  await hostGit(bare, ['init', '--quiet', '--bare', '--initial-branch=main']);
  await hostGit(bare, ['config', 'http.receivepack', 'true']);
  const seed = await mkdtemp(join(tmpdir(), 'caravel-seed-'));
  try {
    await hostGit(seed, ['init', '--quiet', '--initial-branch=main']);
    await writeFile(join(seed, 'README.md'), readme);
    await hostGit(seed, ['add', '.']);
    await hostGit(seed, [
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '--quiet',
      '-m',
      'seed',
    ]);
    await hostGit(seed, ['push', '--quiet', bare, 'main']);
  } finally {
    await rm(seed, { recursive: true, force: true });
  }
  return bare;
}
