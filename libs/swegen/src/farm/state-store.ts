import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { repoSlug } from '../publish/publish-config.js';
import { FarmState } from './farm-state.js';

/** Where a farm's state lives between runs. */
export interface StateStore {
  /** Where the local copy is (named in abort messages). */
  readonly mirrorPath: string;
  /** The saved state, or a fresh one. */
  load(): Promise<FarmState>;
  /** Saves the state durably (may merge in a concurrent writer's state first). */
  save(state: FarmState): Promise<void>;
}

/** `<stateDir>/stream_farm/<owner>__<repo>.json`. */
export const mirrorPathFor = (stateDir: string, repo: string): string =>
  join(stateDir, 'stream_farm', `${repoSlug(repo)}.json`);

/** Reads a state file, or undefined when there is none. */
export async function readStateFile(
  path: string,
  now?: () => Date,
): Promise<FarmState | undefined> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return text === undefined ? undefined : FarmState.fromJSON(JSON.parse(text), now);
}

/** Writes a state file atomically (a crash leaves the old file or the new one, never half). */
export async function writeStateFile(path: string, state: FarmState): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(state.toJSON(), null, 2)}\n`);
  await rename(temp, path);
}

/** The default store: the local file only. `reset` starts from a fresh state. */
export class LocalStateStore implements StateStore {
  readonly mirrorPath: string;

  constructor(
    private readonly repo: string,
    stateDir: string,
    private readonly options: { reset?: boolean; now?: () => Date } = {},
  ) {
    this.mirrorPath = mirrorPathFor(stateDir, repo);
  }

  async load(): Promise<FarmState> {
    const fresh = new FarmState(this.repo, this.options.now);
    if (this.options.reset) return fresh;
    return (await readStateFile(this.mirrorPath, this.options.now)) ?? fresh;
  }

  save(state: FarmState): Promise<void> {
    return writeStateFile(this.mirrorPath, state);
  }
}
