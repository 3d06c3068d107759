import { AppError } from '@caravel/errors';
import { hostGit } from '@caravel/sandbox';
import { cp, mkdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';

export interface LocalRepository {
  /** The repository runs clone from and push their branch to. */
  path: string;
  name: string;
  /** Set when the directory was not a repository of its own and a copy was made. */
  copiedFrom?: string;
}

async function isOwnRepository(path: string): Promise<boolean> {
  try {
    return (await hostGit(path, ['rev-parse', '--show-toplevel'])) === path;
  } catch {
    return false;
  }
}

/**
 * The repository `caravel run` works on. A directory that is not the top of its own git
 * repository (such as `examples/sample-repo` inside this one) is copied into a fresh repository
 * first, so the run's branch never lands in an unrelated repository. The copy goes under
 * `copyInto` (the command's data directory: removed with it, or kept with it when the user named
 * it), so no exit path leaves a copy behind in the temporary directory.
 */
export async function localRepository(
  pathArg: string,
  { copyInto }: { copyInto: string },
): Promise<LocalRepository> {
  const path = resolve(pathArg);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory())
    throw new AppError('BAD_REQUEST', `--repo ${pathArg}: no such directory`);
  if (await isOwnRepository(path)) return { path, name: basename(path) };
  const parent = join(copyInto, 'repository');
  await mkdir(parent, { recursive: true });
  const copy = join(parent, basename(path));
  await cp(path, copy, { recursive: true, filter: (source) => !source.includes('/node_modules') });
  await hostGit(copy, ['init', '--quiet', '--initial-branch=main']);
  await hostGit(copy, ['add', '-A']);
  await hostGit(copy, [
    '-c',
    'user.name=Caravel',
    '-c',
    'user.email=caravel@users.noreply.localhost',
    'commit',
    '--quiet',
    '-m',
    'Initial import',
  ]);
  return { path: copy, name: basename(path), copiedFrom: path };
}

/** What the run's branch changed, from the repository it was pushed to. */
export async function branchDiff(repository: string, branch: string): Promise<string | undefined> {
  try {
    const base = await hostGit(repository, ['merge-base', 'HEAD', branch]);
    return await hostGit(repository, ['diff', '--no-color', `${base}..${branch}`]);
  } catch {
    return undefined;
  }
}
