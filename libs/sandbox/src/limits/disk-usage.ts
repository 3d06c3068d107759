import { execFile } from 'node:child_process';
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

/** Bytes in use on the filesystem holding `path` (for a cheap "did anything grow" check). */
export async function filesystemUsed(path: string): Promise<number | undefined> {
  const info = await statfs(path).catch(() => undefined);
  return info ? (info.blocks - info.bfree) * info.bsize : undefined;
}

/** Bytes still free to unprivileged writers on the filesystem holding `path`. */
export async function filesystemAvailable(path: string): Promise<number | undefined> {
  const info = await statfs(path).catch(() => undefined);
  return info ? info.bavail * info.bsize : undefined;
}
