import type { AgentsFile, AgentsFileFinder } from '@caravel/middleware';
import { isAppError } from '@caravel/errors';
import type { Sandbox } from '@caravel/sandbox';
import { posix } from 'node:path';

/**
 * Where a run reads its repository's instruction files (AGENTS.md): the text of a file at the
 * place the run trusts, `undefined` when there is none there; rejects when it cannot be read.
 */
export interface InstructionFiles {
  read(path: string): Promise<string | undefined>;
}

/**
 * The instruction files of the repository's base, read on GitHub: the commit `ref` (a pull
 * request's base), or the default branch when absent. What the team merged is what steers the
 * agent; the files of the branch it works on are not, since the agent writes them, and on a
 * fork's pull request so does the fork's author (the reviewer reads its instructions the same
 * way). Each path is read once per run.
 */
export function baseInstructionFiles(
  reader: { readFileAt(path: string, ref?: string): Promise<string> },
  ref: string | undefined,
): InstructionFiles {
  const read = new Map<string, Promise<string | undefined>>();
  return {
    read(path: string): Promise<string | undefined> {
      let reading = read.get(path);
      if (!reading) {
        reading = reader.readFileAt(path, ref).catch((error: unknown) => {
          if (isAppError(error) && error.code === 'NOT_FOUND') return undefined;
          throw error;
        });
        read.set(path, reading);
      }
      return reading;
    },
  };
}

/**
 * The instruction files in the sandbox's working tree: for a repository Caravel cannot read on
 * GitHub (a local path, a plain git URL), whose files are the person's own.
 */
export function workingTreeInstructionFiles(sandbox: Pick<Sandbox, 'readFile'>): InstructionFiles {
  return { read: (path) => sandbox.readFile(path).catch(() => undefined) };
}

/**
 * A run's instruction files: its repository's base on GitHub when `reader` reads there (a
 * GitHub run), else the sandbox's working tree (a repository Caravel cannot read on GitHub).
 */
export function runInstructionFiles(
  reader: Parameters<typeof baseInstructionFiles>[0] | null,
  base: string | undefined,
  sandbox: Pick<Sandbox, 'readFile'>,
): InstructionFiles {
  return reader ? baseInstructionFiles(reader, base) : workingTreeInstructionFiles(sandbox);
}

/**
 * Finds the AGENTS.md files of a path's directory and every parent up to the repository root,
 * in `files`. A path that leaves the repository (`..`) has none.
 */
export class InstructionFileFinder implements AgentsFileFinder {
  constructor(private readonly files: InstructionFiles) {}

  async findAgentsFiles(path: string): Promise<AgentsFile[]> {
    const relative = posix.normalize(path.replace(/^\/+/, '').replace(/^workspace\//, ''));
    if (relative === '..' || relative.startsWith('../')) return [];
    const found: AgentsFile[] = [];
    let dir = posix.dirname(relative);
    for (;;) {
      const candidate = dir === '.' ? 'AGENTS.md' : `${dir}/AGENTS.md`;
      const content = await this.files.read(candidate);
      if (content !== undefined) found.push({ path: candidate, content });
      if (dir === '.' || dir === '/' || dir === '') break;
      dir = posix.dirname(dir);
    }
    return found;
  }
}
