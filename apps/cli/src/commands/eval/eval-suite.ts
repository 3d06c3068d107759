import { AppError } from '@caravel/errors';
import { readTaskTimeouts, type TaskTimeouts } from '@caravel/swegen';
import { access, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';

/** One Harbor task of a suite, as an attempt needs it. */
export interface SuiteTask {
  readonly taskId: string;
  readonly dir: string;
  readonly instruction: string;
  /** task.toml's `source_repo` (`owner/name`), where the repository cache is looked up. */
  readonly sourceRepo?: string;
  readonly timeouts: TaskTimeouts;
}

/** A suite: its name (the folder's) and its tasks in name order. */
export interface Suite {
  readonly name: string;
  readonly dir: string;
  readonly tasks: readonly SuiteTask[];
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** A Harbor task folder: `instruction.md`, `tests/test.sh` and `environment/Dockerfile`. */
async function isTask(dir: string): Promise<boolean> {
  for (const file of ['instruction.md', 'tests/test.sh', 'environment/Dockerfile'])
    if (!(await exists(join(dir, file)))) return false;
  return true;
}

async function readTask(dir: string): Promise<SuiteTask> {
  const toml = await readFile(join(dir, 'task.toml'), 'utf8').catch(() => '');
  const sourceRepo = /^source_repo\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  return {
    taskId: basename(dir),
    dir,
    instruction: await readFile(join(dir, 'instruction.md'), 'utf8'),
    ...(sourceRepo ? { sourceRepo } : {}),
    timeouts: await readTaskTimeouts(dir),
  };
}

/**
 * Reads a suite folder: every sub-folder that is a Harbor task (as `caravel swegen create|farm`
 * writes them), or the folder itself when it is one task. A missing folder, a file, or a folder
 * with no task is refused (BAD_REQUEST) saying what a task is.
 */
export async function readSuite(path: string): Promise<Suite> {
  const dir = resolve(path);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory())
    throw new AppError('BAD_REQUEST', `${path}: ${info ? 'not a folder' : 'no such folder'}`);
  if (await isTask(dir)) return { name: basename(dir), dir, tasks: [await readTask(dir)] };
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const tasks: SuiteTask[] = [];
  for (const name of names)
    if (await isTask(join(dir, name))) tasks.push(await readTask(join(dir, name)));
  if (tasks.length === 0)
    throw new AppError(
      'BAD_REQUEST',
      `${path}: no task in it (a task is a folder with instruction.md, tests/test.sh and environment/Dockerfile, as caravel swegen create writes)`,
    );
  return { name: basename(dir), dir, tasks };
}
