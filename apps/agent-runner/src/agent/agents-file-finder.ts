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

/** The name a file must have, exactly (paths are case-sensitive on GitHub), to instruct a run. */
const INSTRUCTION_FILE_NAME = 'AGENTS.md';

/** How the base's files are read on GitHub (`GitHubScmReader`): one listing, then contents. */
export interface BaseReader {
  /** Every file path at `ref` in one call; `truncated` when GitHub cut the listing short. */
  listFilesAt(ref?: string): Promise<{ paths: string[]; truncated: boolean }>;
  readFileAt(path: string, ref?: string): Promise<string>;
}

/** What a listing tells of the base: its AGENTS.md paths, or `walk` when it could not say. */
type Listed = ReadonlySet<string> | 'walk';

const TRUNCATED =
  'the repository is too large to list in one call on GitHub (its listing is truncated): its AGENTS.md files are looked for directory by directory';

/** Answers `none` for a file or ref GitHub does not have (NOT_FOUND); other failures stand. */
function noneWhenNotFound<T>(none: T): (error: unknown) => T {
  return (error: unknown): T => {
    if (isAppError(error) && error.code === 'NOT_FOUND') return none;
    throw error;
  };
}

/**
 * The instruction files of the repository's base, read on GitHub: the commit `ref` (a pull
 * request's base), or the default branch when absent. What the team merged is what steers the
 * agent; the files of the branch it works on are not, since the agent writes them, and on a
 * fork's pull request so does the fork's author (the reviewer reads its instructions the same
 * way). The first read lists the base in one call (GitHub's recursive tree); only the AGENTS.md
 * files it holds are then read, each once per run: 1 + N calls for N files, where walking every
 * directory of every file the agent reads and their parents took one call per directory. When
 * GitHub cuts the listing short (a very large repository) the reads walk as before, and `log`
 * says so once. A listing that fails fails every read: the run goes without instructions, never
 * to the sandbox.
 */
export function baseInstructionFiles(
  reader: BaseReader,
  ref: string | undefined,
  log: (line: string) => void,
): InstructionFiles {
  let listing: Promise<Listed> | undefined;
  const listed = (): Promise<Listed> =>
    (listing ??= reader.listFilesAt(ref).then(({ paths, truncated }): Listed => {
      if (!truncated) {
        return new Set(paths.filter((path) => posix.basename(path) === INSTRUCTION_FILE_NAME));
      }
      log(TRUNCATED);
      return 'walk';
    }, noneWhenNotFound<Listed>(new Set())));
  const read = new Map<string, Promise<string | undefined>>();
  const readOnce = (path: string): Promise<string | undefined> => {
    let reading = read.get(path);
    if (!reading) {
      reading = reader.readFileAt(path, ref).catch(noneWhenNotFound<string | undefined>(undefined));
      read.set(path, reading);
    }
    return reading;
  };
  return {
    async read(path: string): Promise<string | undefined> {
      const known = await listed();
      return known === 'walk' || known.has(path) ? readOnce(path) : undefined;
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
  reader: BaseReader | null,
  base: string | undefined,
  sandbox: Pick<Sandbox, 'readFile'>,
  log: (line: string) => void,
): InstructionFiles {
  return reader ? baseInstructionFiles(reader, base, log) : workingTreeInstructionFiles(sandbox);
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
