import { performance } from 'node:perf_hooks';
import type { ExecResult, SandboxLimits } from '../sandbox.types.js';
import { NO_COUNTS, type LimitCounters } from './cgroup-backend.js';
import { diskUsage, filesystemUsage, tmpfsAvailable } from './disk-usage.js';
import { limitNote, type LimitHit } from './limit-notes.js';
import { commandLine, descendants, innerPid, stopProcessesBelow } from './process-tree.js';

/** What a session's watch looks after. */
export interface LimitWatchOptions {
  readonly limits: SandboxLimits;
  /** The session's process on the host (bubblewrap, outside the sandbox's pid namespace). */
  readonly hostPid: number;
  /** The session driver's pid inside the sandbox (from its greeting). */
  readonly driverPid: number;
  /** Marks a command's process among the driver's children (its command line holds it). */
  readonly commandMarker: string;
  /** Host directories whose disk use counts against `maxWorkspaceBytes`. */
  readonly diskDirs: readonly string[];
  /** The sandbox cgroup's counters; absent without cgroups. */
  readonly counters?: () => Promise<LimitCounters>;
  /** How often the watch looks (default 1 s); disk walks are spaced by their own cost too. */
  readonly intervalMs?: number;
  readonly duPath?: string;
  /** Told each time the watch stops the sandbox's processes, and why (for the operator's log). */
  readonly onStop?: (stop: LimitStop) => void;
}

/** One stop of a sandbox's processes by its watch. */
export interface LimitStop {
  readonly limit: 'processes' | 'workspace';
  /** Processes signalled (the command and what it started, background processes). */
  readonly signalled: number;
}

/**
 * Watches one session's sandbox from the host, where the sandbox cannot interfere: forks refused
 * by the process limit, processes the OOM killer ended, the disk the workspace and home use, and
 * a full /tmp. Past the process or disk limit it stops every process of the sandbox but its init
 * and the session driver (the command ends, the session carries on). `annotate` adds a note per
 * limit hit since the previous result to a command's output, so the agent reads what happened.
 */
export class LimitWatch {
  private timer: NodeJS.Timeout | undefined;
  private serial: Promise<unknown> = Promise.resolve();
  private ticking = false;
  private reported: LimitCounters = NO_COUNTS;
  private refusalsSeen = 0;
  private readonly pending: LimitHit[] = [];
  private readonly disk = {
    usage: 0,
    baseline: 0,
    fsUsedAtWalk: undefined as number | undefined,
    lastWalkAt: Number.NEGATIVE_INFINITY,
    walkMs: 0,
  };
  private initPid: number | undefined;
  /** The usage of the filesystem holding the first disk directory (undefined without one). */
  private filesystemUsed: () => Promise<number | undefined> = () => Promise.resolve(undefined);

  constructor(private readonly options: LimitWatchOptions) {}

  /** Takes the starting figures, then looks every interval until `stop`. */
  async start(): Promise<void> {
    const [first] = this.options.diskDirs;
    if (first !== undefined) this.filesystemUsed = await filesystemUsage(first);
    this.reported = (await this.options.counters?.()) ?? NO_COUNTS;
    this.refusalsSeen = this.reported.processRefusals;
    await this.measureDisk(true);
    this.disk.baseline = this.disk.usage;
    this.timer = setInterval(() => this.tick(), this.options.intervalMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The result with a note for every limit hit since the previous result. */
  annotate(result: ExecResult): Promise<ExecResult> {
    return this.exclusive(async () => {
      // Each figure is read in place, from kernel memory (the cgroup's counters, /proc, the
      // statfs of /tmp's tmpfs and of a local workspace filesystem): no trip through the thread
      // pool, which cost a command about 1 ms; only a network workspace's statfs makes one.
      const [counters, fsUsed, tmp] = await Promise.all([
        this.options.counters?.(),
        this.filesystemUsed(),
        this.tmpHit(),
      ]);
      const hits = [...this.pending.splice(0), ...(await this.counterHits(counters))];
      const disk = await this.checkDisk(true, fsUsed);
      if (disk) hits.push(disk);
      if (tmp) hits.push(tmp);
      if (hits.length === 0) return result;
      const notes = hits.map(limitNote).join('\n');
      const separator = result.output === '' || result.output.endsWith('\n') ? '' : '\n';
      return { ...result, output: `${result.output}${separator}${notes}\n` };
    });
  }

  private tick(): void {
    if (this.ticking) return;
    this.ticking = true;
    void this.exclusive(async () => {
      const counters = await this.options.counters?.();
      if (counters && counters.processRefusals > this.refusalsSeen) {
        this.refusalsSeen = counters.processRefusals;
        await this.stopSandboxProcesses('processes');
      }
      const disk = await this.checkDisk(false);
      if (disk) this.pending.push(disk);
    })
      .catch(() => undefined)
      .finally(() => {
        this.ticking = false;
      });
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.serial.then(work);
    this.serial = run.catch(() => undefined);
    return run;
  }

  /** Refused forks and OOM kills since the last result (and a stop if forks are refused now). */
  private async counterHits(now: LimitCounters | undefined): Promise<LimitHit[]> {
    if (!now) return [];
    const hits: LimitHit[] = [];
    const refusals = now.processRefusals - this.reported.processRefusals;
    if (refusals > 0) {
      if (now.processRefusals > this.refusalsSeen) await this.stopSandboxProcesses('processes');
      this.refusalsSeen = now.processRefusals;
      hits.push({ kind: 'processes', limit: this.options.limits.maxProcesses, refusals });
    }
    const kills = now.oomKills - this.reported.oomKills;
    if (kills > 0) {
      hits.push({ kind: 'memory', limitBytes: this.options.limits.maxMemoryBytes, kills });
    }
    this.reported = now;
    return hits;
  }

  /**
   * Over the disk limit and above where the last command left it: stop the sandbox's processes.
   * A command that only deletes (or leaves usage as it was) is never stopped, so the agent can
   * clean up after going over.
   */
  private async checkDisk(atResult: boolean, fsUsed?: number): Promise<LimitHit | undefined> {
    await this.measureDisk(atResult, fsUsed);
    const limitBytes = this.options.limits.maxWorkspaceBytes;
    const usedBytes = this.disk.usage;
    let hit: LimitHit | undefined;
    if (usedBytes > limitBytes && usedBytes > this.disk.baseline) {
      await this.stopSandboxProcesses('workspace');
      // What was written between the walk and the stop is part of this hit, not a next one.
      await this.measureDisk(true);
      hit = { kind: 'workspace', limitBytes, usedBytes: this.disk.usage, stopped: true };
    }
    if (hit || atResult) this.disk.baseline = this.disk.usage;
    return hit;
  }

  /**
   * Walks the directories only when they may be over the limit: the filesystem's own usage must
   * have grown by at least the room left since the last walk. Walks are spaced by ten times their
   * own duration, so a huge workspace is walked less often (at a result, whenever needed).
   */
  private async measureDisk(force: boolean, known?: number): Promise<void> {
    const fsUsed = known ?? (await this.filesystemUsed());
    if (fsUsed === undefined && this.options.diskDirs.length === 0) return;
    const grown =
      fsUsed === undefined || this.disk.fsUsedAtWalk === undefined
        ? Number.POSITIVE_INFINITY
        : fsUsed - this.disk.fsUsedAtWalk;
    const mayBeOver = this.disk.usage + grown > this.options.limits.maxWorkspaceBytes;
    const spacing = Math.max(this.options.intervalMs ?? 1000, 10 * this.disk.walkMs);
    const due = performance.now() - this.disk.lastWalkAt >= spacing;
    if (!mayBeOver || !(due || force)) return;
    const startedAt = performance.now();
    const usage = await diskUsage(this.options.diskDirs, this.options.duPath);
    this.disk.lastWalkAt = performance.now();
    this.disk.walkMs = this.disk.lastWalkAt - startedAt;
    if (usage === undefined) return;
    this.disk.usage = usage;
    this.disk.fsUsedAtWalk = fsUsed;
  }

  /** /tmp (a tmpfs seen through the sandbox's init) with almost nothing left. */
  private async tmpHit(): Promise<LimitHit | undefined> {
    const init = await this.sandboxInit();
    if (init === undefined) return undefined;
    const available = tmpfsAvailable(`/proc/${init}/root/tmp`);
    const limitBytes = this.options.limits.maxTmpBytes;
    if (available === undefined || available >= Math.min(1024 ** 2, limitBytes / 50))
      return undefined;
    return { kind: 'tmp', limitBytes };
  }

  private async sandboxInit(): Promise<number | undefined> {
    if (this.initPid !== undefined && innerPid(this.initPid) === 1) return this.initPid;
    for (const entry of await descendants(this.options.hostPid)) {
      if (innerPid(entry.pid) === 1) return (this.initPid = entry.pid);
    }
    return undefined;
  }

  /**
   * Stops everything in the sandbox but its init, the session driver and the driver's own helpers
   * (its timeout watchdog, the `head`/`tail` that frame a result): the running command with all
   * it started, and every background process.
   */
  private async stopSandboxProcesses(limit: LimitStop['limit']): Promise<void> {
    const tree = await descendants(this.options.hostPid);
    let driverHost: number | undefined;
    for (const entry of tree) {
      if (innerPid(entry.pid) === this.options.driverPid) driverHost = entry.pid;
    }
    // Without the driver in sight, stopping could take the session with it: leave it to the limits.
    if (driverHost === undefined) return;
    const signalled = await stopProcessesBelow(this.options.hostPid, async (entry) => {
      const inner = innerPid(entry.pid);
      if (inner === 1 || entry.pid === driverHost) return 'keep';
      if (entry.ppid !== driverHost) return 'freeze';
      // The driver waits for its command: kill it outright, or the driver reads it as done.
      const command = (await commandLine(entry.pid)).includes(this.options.commandMarker);
      return command ? 'kill' : 'keep';
    });
    this.options.onStop?.({ limit, signalled });
  }
}
