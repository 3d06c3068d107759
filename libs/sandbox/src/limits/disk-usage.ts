import { execFile } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';

/** A walk that has not finished in this long is abandoned (its figure is then unknown). */
const DU_TIMEOUT_MS = 60_000;

/**
 * Disk used under `dirs` together, in bytes, as `du` counts it (allocated blocks, each hard-linked
 * file once, never crossing into another filesystem). Unreadable entries (a file deleted during
 * the walk) are skipped; undefined when `du` gives no total at all.
 */
export function diskUsage(
  dirs: readonly string[],
  duPath = '/usr/bin/du',
): Promise<number | undefined> {
  return new Promise((resolve) => {
    execFile(
      duPath,
      ['-s', '-x', '-B1', '-c', '--', ...dirs],
      { timeout: DU_TIMEOUT_MS, maxBuffer: 1024 * 1024, env: { LC_ALL: 'C' } },
      (_error, stdout) => {
        const total = /^(\d+)\s+total$/m.exec(stdout)?.[1];
        resolve(total === undefined ? undefined : Number(total));
      },
    );
  });
}

/**
 * Filesystems whose `statfs` answers from counters in memory (ext2/3/4, XFS, Btrfs, tmpfs,
 * overlayfs): asked in place, they cost microseconds. A network or FUSE filesystem may wait on
 * its server, so it is asked on the thread pool.
 */
export const IN_MEMORY_STATFS: ReadonlySet<number> = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630,
]);

/**
 * Bytes in use on the filesystem holding `path` (for a cheap "did anything grow" check), asked
 * where it is cheapest: in place on a local filesystem (it is asked after every command), on the
 * thread pool elsewhere. The kind of filesystem is asked once, on the thread pool.
 */
export async function filesystemUsage(path: string): Promise<() => Promise<number | undefined>> {
  const used = (info: { blocks: number; bfree: number; bsize: number }) =>
    (info.blocks - info.bfree) * info.bsize;
  const info = await statfs(path).catch(() => undefined);
  if (info && IN_MEMORY_STATFS.has(info.type)) {
    return () => {
      try {
        return Promise.resolve(used(statfsSync(path)));
      } catch {
        return Promise.resolve(undefined);
      }
    };
  }
  return () => statfs(path).then(used, () => undefined);
}

/**
 * Bytes still free to unprivileged writers on the in-memory filesystem (a tmpfs) holding `path`:
 * asked synchronously, as a tmpfs answers from memory, never from a disk or the network.
 */
export function tmpfsAvailable(path: string): number | undefined {
  try {
    const info = statfsSync(path);
    return info.bavail * info.bsize;
  } catch {
    return undefined;
  }
}
