import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { SandboxLimits, SandboxLogger } from '../sandbox.types.js';
import { CGROUP_PREFIX, type CgroupBackend, type CgroupStep } from './cgroup-backend.js';
import { detectCgroups, type CgroupDetection, type CgroupMode } from './cgroup-detect.js';
import { LimitWatch, type LimitWatchOptions } from './limit-watch.js';

/** How a provider limits its sandboxes (all optional). */
export interface SandboxLimitOptions {
  /** Which cgroup mechanism holds the limits (default `auto`; see `CgroupMode`). */
  readonly cgroup?: CgroupMode;
  /**
   * The cgroup (a path inside the hierarchy, e.g. `/caravel/sandboxes`) sandbox cgroups are made
   * under. v2: it must be delegated to this process. Default: v2, a delegated systemd scope or
   * this process's own cgroup; v1, /caravel-sandboxes.
   */
  readonly cgroupParent?: string;
  /** Drops a root broker's spawn wrapper to the sandbox's host user (util-linux). */
  readonly setprivPath?: string;
  readonly systemdRunPath?: string;
  /** How often the host-side watch looks at a session's sandbox (default 1 s). */
  readonly watchIntervalMs?: number;
  /** Receives which mechanism is used, once, at start. */
  readonly logger?: SandboxLogger;
  /** A hierarchy chosen by the caller instead of detecting one (null: rlimits only); tests. */
  readonly backend?: CgroupBackend | null;
}

/** A process to start, as given to `spawn`. */
export interface SpawnCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly uid?: number;
  readonly gid?: number;
}

/** The rlimits set inside the sandbox (see `driverArguments`); absent ones are left as they are. */
export interface SandboxUlimits {
  readonly processes?: number;
  readonly addressSpaceKiB?: number;
  readonly fileSizeKiB?: number;
  readonly openFiles?: number;
}

/**
 * Run by `/bin/sh` before the sandbox process: creates the sandbox's cgroup with its limits
 * (idempotent, so no host-side state can go stale) and moves itself into it, then execs the real
 * command, which starts inside: nothing it forks was ever outside. Steps come as
 * `<op> <path> <value>` triples up to `--`. A cgroup removed meanwhile (its last process just
 * ended) is made again: three tries; then it stops (exit 125), never running unconfined.
 */
const ENTER_SCRIPT = String.raw`n=0
for a do [ "$a" = -- ] && break; n=$((n + 1)); done
apply() {
  while [ "$1" != -- ]; do
    step="$1 $2"
    case $1 in
      mkdir) [ -d "$2" ] || /bin/mkdir -p -- "$2" ;;
      write) printf '%s\n' "$3" > "$2" ;;
      try) { printf '%s\n' "$3" > "$2"; } 2>/dev/null || : ;;
      join) printf '%s\n' "$$" > "$2" ;;
    esac || return 1
    shift 3
  done
}
apply "$@" || apply "$@" || apply "$@" || {
  printf 'caravel: cannot apply the sandbox limits (%s)\n' "$step" >&2
  exit 125
}
shift "$((n + 1))"
exec "$@"`;

function stepArguments(step: CgroupStep): string[] {
  return [step.op, step.path, 'value' in step ? step.value : '-'];
}

/** `ulimit` arguments for a `bash -c` prefix (the one-shot path's equivalent of the driver's). */
export function ulimitCommand(ulimits: SandboxUlimits): string {
  const flags: [string, number | undefined][] = [
    ['-u', ulimits.processes],
    ['-v', ulimits.addressSpaceKiB],
    ['-f', ulimits.fileSizeKiB],
    ['-n', ulimits.openFiles],
  ];
  const set = flags.filter((flag): flag is [string, number] => flag[1] !== undefined);
  return set.length === 0
    ? ':'
    : `ulimit -S -H ${set.map(([flag, value]) => `${flag} ${value}`).join(' ')}`;
}

/**
 * A provider's resource limits: detects once which cgroup hierarchy holds them (and logs it),
 * wraps every sandbox process it spawns (the session and one-shot commands alike) so it starts
 * inside its sandbox's cgroup, says which rlimits still apply inside, watches sessions from the
 * host, and removes a sandbox's cgroup when nothing runs in it any more or the sandbox is deleted.
 */
export class SandboxLimiter {
  private detection: Promise<CgroupDetection> | undefined;
  private readonly instance: string;

  /** `instance` (the provider's root directory) keeps two providers' cgroups apart. */
  constructor(
    private readonly options: SandboxLimitOptions,
    instance: string,
  ) {
    this.instance = createHash('sha256').update(instance).digest('hex').slice(0, 8);
  }

  /** The hierarchy sandboxes are limited with (null: rlimits only); detected and logged once. */
  async backend(): Promise<CgroupBackend | null> {
    this.detection ??= this.detect();
    return (await this.detection).backend;
  }

  /** The cgroup name of a sandbox (the same in every hierarchy). */
  cgroupName(sandboxId: string): string {
    return `${CGROUP_PREFIX}${sandboxId}-${this.instance}`;
  }

  /** The directories of a sandbox's cgroup (none without cgroups), for operators and tests. */
  async cgroupDirs(sandboxId: string): Promise<string[]> {
    return (await this.backend())?.dirs(this.cgroupName(sandboxId)) ?? [];
  }

  /**
   * The command that starts `command` inside the sandbox's cgroup: `/bin/sh` creates and enters
   * the cgroup, then (when this process is root) `setpriv` drops to `command`'s uid and gid before
   * exec'ing it. Unchanged without cgroups.
   */
  async confine(
    sandboxId: string,
    limits: SandboxLimits,
    command: SpawnCommand,
  ): Promise<SpawnCommand> {
    const backend = await this.backend();
    if (!backend) return command;
    const steps = backend.enterSteps(this.cgroupName(sandboxId), limits).flatMap(stepArguments);
    const drop =
      command.uid !== undefined && process.getuid?.() === 0
        ? [
            this.options.setprivPath ?? '/usr/bin/setpriv',
            `--reuid=${command.uid}`,
            `--regid=${command.gid ?? command.uid}`,
            '--clear-groups',
            '--',
          ]
        : [];
    const keepIds = drop.length === 0 && command.uid !== undefined;
    return {
      file: '/bin/sh',
      args: [
        '-c',
        ENTER_SCRIPT,
        'caravel-limits',
        ...steps,
        '--',
        ...drop,
        command.file,
        ...command.args,
      ],
      ...(keepIds
        ? { uid: command.uid, ...(command.gid === undefined ? {} : { gid: command.gid }) }
        : {}),
    };
  }

  /**
   * The rlimits set inside. Where a cgroup holds processes the rlimit is a backstop at twice the
   * figure (so the cgroup, which says when it refused, is what a fork bomb meets); where it holds
   * memory there is no address-space rlimit (runtimes reserve far more than they use).
   */
  async ulimits(limits: SandboxLimits): Promise<SandboxUlimits> {
    const enforces = (await this.backend())?.enforces;
    return {
      processes: enforces?.processes ? limits.maxProcesses * 2 : limits.maxProcesses,
      ...(enforces?.memory ? {} : { addressSpaceKiB: Math.floor(limits.maxMemoryBytes / 1024) }),
      fileSizeKiB: Math.floor(limits.maxFileBytes / 1024),
      openFiles: limits.maxOpenFiles,
    };
  }

  /** Starts the host-side watch of one session (see `LimitWatch`). */
  async watch(
    sandboxId: string,
    options: Omit<LimitWatchOptions, 'counters' | 'intervalMs' | 'onStop'>,
  ): Promise<LimitWatch> {
    const backend = await this.backend();
    const name = this.cgroupName(sandboxId);
    const logger = this.options.logger;
    const watch = new LimitWatch({
      ...options,
      onStop: ({ limit, signalled }) =>
        logger?.warn(
          `sandbox ${sandboxId}: past its ${limit} limit, ${signalled} of its processes stopped`,
          { sandboxId, limit, signalled },
        ),
      ...(backend ? { counters: () => backend.counters(name) } : {}),
      ...(this.options.watchIntervalMs ? { intervalMs: this.options.watchIntervalMs } : {}),
    });
    await watch.start();
    return watch;
  }

  /** A process of the sandbox ended: its cgroup goes if nothing else runs in it. */
  async released(sandboxId: string): Promise<void> {
    await (await this.backend())?.removeIfEmpty(this.cgroupName(sandboxId));
  }

  /** The sandbox is deleted: whatever is left in its cgroup is killed, and the cgroup removed. */
  async remove(sandboxId: string): Promise<void> {
    await (await this.backend())?.remove(this.cgroupName(sandboxId));
  }

  private async detect(): Promise<CgroupDetection> {
    if (this.options.backend !== undefined) {
      return this.options.backend
        ? { backend: this.options.backend }
        : { backend: null, reason: 'none given' };
    }
    const detection = await detectCgroups({
      mode: this.options.cgroup ?? 'auto',
      ...(this.options.cgroupParent === undefined ? {} : { parent: this.options.cgroupParent }),
      systemdRunPath: this.options.systemdRunPath ?? '/usr/bin/systemd-run',
    });
    const setpriv = this.options.setprivPath ?? '/usr/bin/setpriv';
    const outcome: CgroupDetection =
      detection.backend && process.getuid?.() === 0 && !existsSync(setpriv)
        ? { backend: null, reason: `${setpriv} is missing (util-linux)` }
        : detection;
    await outcome.backend?.sweepEmpty().catch(() => undefined);
    const logger = this.options.logger;
    if (outcome.backend) {
      const message = `sandbox limits: ${outcome.backend.description} holds each sandbox's processes, memory and CPU; rlimits stay as a backstop`;
      (logger?.info ?? logger?.warn)?.call(logger, message);
    } else {
      logger?.warn(
        `sandbox limits: no cgroup (${outcome.reason}); only rlimits hold: processes per sandbox, address space, file size and open files per process; memory and CPU are not limited per sandbox`,
      );
    }
    return outcome;
  }
}
