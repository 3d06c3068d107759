import { readFileSync } from 'node:fs';
import { readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxLimits } from '../sandbox.types.js';

/** What a sandbox's cgroup counted: refused forks and processes the OOM killer ended. */
export interface LimitCounters {
  readonly processRefusals: number;
  readonly oomKills: number;
}

export const NO_COUNTS: LimitCounters = { processRefusals: 0, oomKills: 0 };

/**
 * One step the spawn wrapper takes, as root before it drops to the sandbox's host user (or as the
 * broker's own user when it is not root), to create a sandbox's cgroup and enter it. `try` writes
 * may fail (see the v1 memory limit); `join` writes the wrapper's own pid to `cgroup.procs`.
 */
export type CgroupStep =
  | { readonly op: 'mkdir'; readonly path: string }
  | { readonly op: 'write' | 'try'; readonly path: string; readonly value: string }
  | { readonly op: 'join'; readonly path: string };

/** Which limits a cgroup hierarchy holds (the others fall back to rlimits, or to nothing). */
export interface CgroupEnforcement {
  readonly processes: boolean;
  readonly memory: boolean;
  readonly cpu: boolean;
}

/** A cgroup hierarchy the broker may make sandbox cgroups in. */
export interface CgroupBackend {
  readonly version: 'v1' | 'v2';
  /** For the start-up log line: which hierarchy, where. */
  readonly description: string;
  readonly enforces: CgroupEnforcement;
  /** The directories of one sandbox's cgroup (one per v1 hierarchy). */
  dirs(name: string): string[];
  /** What the spawn wrapper does to create (idempotently) and enter the cgroup with `limits`. */
  enterSteps(name: string, limits: SandboxLimits): CgroupStep[];
  counters(name: string): Promise<LimitCounters>;
  /** Kills whatever is left in the cgroup and removes it. */
  remove(name: string): Promise<void>;
  /** Removes the cgroup if nothing runs in it any more; leaves it otherwise. */
  removeIfEmpty(name: string): Promise<void>;
  /** Removes every empty sandbox cgroup (left by a process that stopped before it could). */
  sweepEmpty(): Promise<void>;
}

/**
 * What the v1 and v2 backends share: sandbox cgroups are directories under one or more bases,
 * with refused forks counted as `max` in `pids.events` and OOM kills as `oom_kill`.
 */
export abstract class DirectoryCgroupBackend implements CgroupBackend {
  abstract readonly version: 'v1' | 'v2';
  abstract readonly description: string;
  abstract readonly enforces: CgroupEnforcement;
  /** The directories sandbox cgroups are made in. */
  protected abstract readonly bases: readonly string[];

  abstract dirs(name: string): string[];
  abstract enterSteps(name: string, limits: SandboxLimits): CgroupStep[];
  /** The files a sandbox cgroup counts refused forks and OOM kills in. */
  protected abstract eventFiles(name: string): { readonly pids: string; readonly memory: string };

  /** Read in place, not on the thread pool: see `readKeyedCounts`. */
  counters(name: string): Promise<LimitCounters> {
    const files = this.eventFiles(name);
    const pids = readKeyedCounts(files.pids);
    const memory = readKeyedCounts(files.memory);
    return Promise.resolve({
      processRefusals: pids.get('max') ?? 0,
      oomKills: memory.get('oom_kill') ?? 0,
    });
  }

  remove(name: string): Promise<void> {
    return removeCgroupDirs(this.dirs(name), true);
  }

  removeIfEmpty(name: string): Promise<void> {
    return removeCgroupDirs(this.dirs(name), false);
  }

  sweepEmpty(): Promise<void> {
    return removeEmptyChildren(this.bases);
  }
}

/** Sandbox cgroups are named `sandbox-<id>-<instance>` (see `SandboxLimiter.cgroupName`). */
export const CGROUP_PREFIX = 'sandbox-';

/**
 * Removes the empty sandbox cgroups under `bases`. Safe beside other live providers: the kernel
 * refuses to remove a cgroup with a process in it, and an empty one is made again, limits and
 * all, by the next process that enters it.
 */
export async function removeEmptyChildren(bases: readonly string[]): Promise<void> {
  for (const base of bases) {
    const names = await readdir(base).catch(() => []);
    for (const name of names.filter((entry) => entry.startsWith(CGROUP_PREFIX))) {
      await rmdir(join(base, name)).catch(() => undefined);
    }
  }
}

const CPU_PERIOD_US = 100_000;

/** The CPU quota per period of `maxCpus` CPUs (at least 1 ms). */
export function cpuQuotaUs(maxCpus: number): number {
  return Math.max(1000, Math.round(maxCpus * CPU_PERIOD_US));
}

/**
 * `key value` lines (`pids.events`, `memory.events`, `memory.oom_control`) as numbers. Read
 * synchronously: a cgroup file is made from kernel memory, never waits on a disk, and is read
 * after every command; an asynchronous read is five trips through the thread pool in turn.
 */
export function readKeyedCounts(path: string): Map<string, number> {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    // Gone with its cgroup: nothing counted.
  }
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value && /^\d+$/.test(value)) counts.set(key, Number(value));
  }
  return counts;
}

/** Pids listed in a cgroup's `cgroup.procs` (none when it is gone). */
export async function cgroupPids(dir: string): Promise<number[]> {
  const text = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * Removes cgroup directories. With `kill`, whatever is left in them is killed first (through
 * `cgroup.kill` where the kernel has it) and removal is retried for up to 5 s, as dying processes
 * hold their cgroup for a moment. Without, a cgroup still in use after about a second is left.
 */
export async function removeCgroupDirs(dirs: readonly string[], kill: boolean): Promise<void> {
  const attempts = kill ? 50 : 10;
  for (const dir of dirs) {
    for (let attempt = 1; ; attempt += 1) {
      if (kill) await killAll(dir);
      const failure = await rmdir(dir).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      const code = failure === undefined ? undefined : errorCode(failure);
      if (failure === undefined || code === 'ENOENT') break;
      if (code !== 'EBUSY') throw failure;
      if (attempt >= attempts) {
        if (kill) throw failure;
        return;
      }
      await sleep(100);
    }
  }
}

async function killAll(dir: string): Promise<void> {
  const viaKernel = await writeFile(join(dir, 'cgroup.kill'), '1').then(
    () => true,
    () => false,
  );
  if (viaKernel) return;
  for (const pid of await cgroupPids(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
