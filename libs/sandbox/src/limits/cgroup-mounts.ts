import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';

/** One mounted cgroup hierarchy. */
export interface CgroupMount {
  /** Where it is mounted, e.g. /sys/fs/cgroup/memory. */
  readonly mountPoint: string;
  /** The hierarchy path the mount shows at its mount point (not `/` inside a container). */
  readonly root: string;
}

/** The cgroup hierarchies this process sees, and where in them it is. */
export interface CgroupLayout {
  /**
   * The unified (v2) hierarchy, if one is mounted, and this process's cgroup in it (absent when
   * the mount does not show it).
   */
  readonly unified?: CgroupMount & { readonly ownPath?: string };
  /** v1 hierarchies by controller name (`pids`, `memory`, `cpu`, ...). */
  readonly v1: ReadonlyMap<string, CgroupMount>;
}

/** Where the layout is read from: `/proc/self` by default, a fixture in tests. */
export interface CgroupSources {
  readonly mountinfo: string;
  readonly cgroup: string;
}

const V1_CONTROLLERS = new Set(['pids', 'memory', 'cpu', 'cpuacct', 'cpuset', 'freezer', 'blkio']);

/** Reads `/proc/self/mountinfo` and `/proc/self/cgroup`. */
export async function readCgroupLayout(
  sources: CgroupSources = { mountinfo: '/proc/self/mountinfo', cgroup: '/proc/self/cgroup' },
): Promise<CgroupLayout> {
  const [mountinfo, cgroup] = await Promise.all([
    readFile(sources.mountinfo, 'utf8'),
    readFile(sources.cgroup, 'utf8'),
  ]);
  return parseCgroupLayout(mountinfo, cgroup);
}

/** The pure part of `readCgroupLayout`. */
export function parseCgroupLayout(mountinfo: string, cgroup: string): CgroupLayout {
  let ownUnified: string | undefined;
  for (const line of cgroup.split('\n')) {
    const match = /^0::(.*)$/.exec(line);
    if (match) ownUnified = match[1];
  }
  let unified: CgroupLayout['unified'];
  const v1 = new Map<string, CgroupMount>();
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const fields = before.split(' ');
    const [fsType, , superOptions = ''] = after.split(' ');
    const root = unescapeMount(fields[3] ?? '/');
    const mountPoint = unescapeMount(fields[4] ?? '');
    if (fsType === 'cgroup2' && !unified) {
      const ownPath = ownUnified === undefined ? undefined : relativeTo(root, ownUnified);
      unified = { mountPoint, root, ...(ownPath === undefined ? {} : { ownPath }) };
    } else if (fsType === 'cgroup') {
      for (const option of superOptions.split(',')) {
        if (V1_CONTROLLERS.has(option) && !v1.has(option)) v1.set(option, { mountPoint, root });
      }
    }
  }
  return { ...(unified ? { unified } : {}), v1 };
}

/** The directory of a hierarchy path under a mount (`path` relative to the hierarchy root). */
export function cgroupDir(mount: CgroupMount, path: string): string {
  return join(mount.mountPoint, posix.normalize(`/${path}`));
}

/** `path` as seen through a mount of `root`, or undefined when the mount does not show it. */
function relativeTo(root: string, path: string): string | undefined {
  if (root === '/') return path;
  if (path === root) return '/';
  if (path.startsWith(`${root}/`)) return path.slice(root.length);
  return undefined;
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMount(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(parseInt(octal, 8)),
  );
}
