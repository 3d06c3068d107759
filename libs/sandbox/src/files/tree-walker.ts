import { join } from 'node:path';
import type { FsEntry, WorkdirFs } from './workdir-fs.js';

/** Directories never descended into: version-control internals are not the agent's files. */
const SKIPPED_DIRECTORIES = new Set(['.git']);

/** An entry met while walking, with its workdir-relative path. */
export interface WalkedEntry {
  readonly relative: string;
  readonly hostPath: string;
  readonly entry: FsEntry;
}

/**
 * Walks a directory breadth-first without following symlinks (so a link cannot lead the walk out
 * of the workdir or into a loop), in name order, stopping after `maxVisited` entries.
 */
export async function* walkTree(
  fs: WorkdirFs,
  hostDir: string,
  relativeDir: string,
  options: { recursive: boolean; maxVisited: number },
): AsyncGenerator<WalkedEntry> {
  const queue: { host: string; relative: string }[] = [{ host: hostDir, relative: relativeDir }];
  let visited = 0;
  while (queue.length > 0) {
    const dir = queue.shift() as { host: string; relative: string };
    const entries = await fs.readdir(dir.host);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++visited > options.maxVisited) return;
      const relative = dir.relative ? `${dir.relative}/${entry.name}` : entry.name;
      const hostPath = join(dir.host, entry.name);
      yield { relative, hostPath, entry };
      if (options.recursive && entry.type === 'directory' && !SKIPPED_DIRECTORIES.has(entry.name)) {
        queue.push({ host: hostPath, relative });
      }
    }
  }
}
