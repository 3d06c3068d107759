import { spawnSync } from 'node:child_process';
import { chown, lstat, readlink, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { sandboxError } from '../sandbox.errors.js';
import { WorkdirFiles, type FileOwner } from '../files/workdir-files.js';
import { BashSession } from '../session/bash-session.js';
import { driverArguments } from '../session/driver-script.js';
import {
  bwrapArguments,
  type BwrapEgress,
  type BwrapLayout,
  type HostPathMount,
} from './bwrap-arguments.js';
import { HOOKLESS_GIT_ENV, type OneShotSpawn } from './one-shot.js';
import { ConfinedFs, spawnedHelper, type ConfinedSpawn } from '../files/confined-fs.js';
import { fileHelperLayout } from './bwrap-file-helper.js';
import { assertBinds, resolveBinds, type SandboxBind } from './bwrap-binds.js';
import {
  SandboxLimiter,
  ulimitCommand,
  type SandboxLimitOptions,
  type SpawnCommand,
} from '../limits/sandbox-limiter.js';
import { DEFAULT_ETC_ENTRIES, etcMounts, writeGeneratedEtc } from './sandbox-etc.js';
import {
  DEFAULT_EGRESS_PORT,
  sandboxEgressEnvironment,
  type SandboxEgressSettings,
} from '../proxy/sandbox-egress.js';
import type { SandboxEgressGateway } from '../proxy/egress-proxy-pool.js';
import { DirectoryProvider, type OpenedSession } from './directory-provider.js';
import { safeEnvironment } from './safe-env.js';
import {
  DEFAULT_SANDBOX_SETTINGS,
  SandboxStore,
  type SandboxDefaults,
  type SandboxPaths,
  type SandboxRecord,
} from './sandbox-store.js';
import { DEFAULT_SESSION_TIMING, type SessionTiming } from './session-timing.js';

/**
 * Host system paths exposed read-only by default; nothing under /home, /root, /run, /var or
 * /opt, and only chosen entries of /etc (`DEFAULT_ETC_ENTRIES`).
 */
export const DEFAULT_SYSTEM_PATHS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
];

/** Where things appear inside a bwrap sandbox. */
export const BWRAP_WORKDIR = '/workspace';
const INNER_HOME = '/home/agent';
/** The session driver's own tmpfs (state files, each command's output), apart from /tmp. */
const INNER_STATE = '/run/caravel-session';
const HOSTNAME = 'caravel-sandbox';

/** Settings of the `bwrap` provider. */
export interface BwrapProviderOptions {
  /** Where sandbox directories live (must be traversable by `runAs`). */
  readonly rootDir: string;
  readonly bwrapPath?: string;
  readonly bashPath?: string;
  readonly systemPaths?: readonly string[];
  /**
   * Entries of the host's /etc the sandbox sees (default `DEFAULT_ETC_ENTRIES`; `name*` matches
   * by prefix); `passwd`, `group`, `hosts`, `hostname` and `resolv.conf` are always generated.
   */
  readonly etcEntries?: readonly string[];
  /** How the sandboxes' resource limits are enforced (cgroups, see `SandboxLimitOptions`). */
  readonly limits?: SandboxLimitOptions;
  /**
   * The unprivileged host identity bubblewrap runs as when this process is root (default
   * 65534:65534). Running it as root would map the sandbox user onto host root, which can read
   * root-only files and is exempt from the process limit.
   */
  readonly runAs?: FileOwner;
  readonly sandboxUid?: number;
  readonly sandboxGid?: number;
  readonly defaults?: SandboxDefaults;
  readonly timing?: SessionTiming;
  /** Route the sandbox's network through an egress proxy; absent (the default): no network. */
  readonly egressProxy?: BwrapEgressProxyOptions;
  /** Further binds of every session (e.g. SWE-agent's `/<repo>` and `/root/tools`), in order. */
  readonly binds?: readonly SandboxBind[];
}

/**
 * How sandboxes reach the host's egress proxy. The network namespace stays unshared: the only
 * thing inside that leads out is the proxy's Unix socket, so host services on 127.0.0.1 stay
 * unreachable.
 */
export interface BwrapEgressProxyOptions extends SandboxEgressSettings {
  /**
   * The host directory holding this sandbox's proxy socket (`egress.sock`), bound read-only at
   * /run/caravel. One directory per sandbox: the proxy behind it is scoped to one repository.
   * It must be traversable by `runAs`. For a proxy the caller runs itself; see `gateway`.
   */
  readonly socketDir?: (sandboxId: string) => string;
  /**
   * Runs each sandbox's proxy on demand (the broker's `EgressProxyPool`): opened before every
   * session starts, released when it ends, forgotten when the sandbox is deleted. Takes
   * precedence over `socketDir`.
   */
  readonly gateway?: SandboxEgressGateway;
  /** The forwarder binary on the host, visible inside through the system paths (default /usr/bin/socat). */
  readonly socatPath?: string;
}

/** Whether a bubblewrap binary answers `--version` at this path. */
export function bwrapAvailable(bwrapPath = '/usr/bin/bwrap'): boolean {
  const result = spawnSync(bwrapPath, ['--version'], { stdio: 'ignore', env: {} });
  return result.status === 0;
}

async function systemMounts(paths: readonly string[]): Promise<HostPathMount[]> {
  const mounts: HostPathMount[] = [];
  for (const path of paths) {
    const info = await lstat(path).catch(() => undefined);
    if (info?.isSymbolicLink())
      mounts.push({ kind: 'symlink', path, target: await readlink(path) });
    else if (info?.isDirectory()) mounts.push({ kind: 'ro-bind', path });
  }
  return mounts;
}

/** Bubblewrap runs as `owner`, so it must be able to reach the workspace through every parent. */
async function assertTraversable(dir: string, owner: FileOwner): Promise<void> {
  for (let current = dir; current !== dirname(current); current = dirname(current)) {
    const info = await stat(current);
    const byOwner = info.uid === owner.uid && (info.mode & 0o100) !== 0;
    if (!byOwner && (info.mode & 0o001) === 0) {
      throw sandboxError(
        'invalid_input',
        `${current} is not traversable by uid ${owner.uid}, which bubblewrap runs as`,
        { path: current },
      );
    }
  }
}

/**
 * The default provider on Linux: each session is a bubblewrap sandbox with a read-only system,
 * the writable workspace at /workspace, own pid/ipc/uts/net/user/cgroup namespaces (no network),
 * a non-root user, fresh /tmp and /dev, ulimits on processes, memory, file size and open files,
 * and an environment built from scratch. It dies with this process.
 */
export class BwrapSandboxProvider extends DirectoryProvider {
  readonly name = 'bwrap' as const;
  private mounts: Promise<HostPathMount[]> | undefined;
  private readonly owner: FileOwner | undefined;
  /** Cgroups, rlimits and the host-side watch of every process this provider starts. */
  readonly limiter: SandboxLimiter;

  constructor(private readonly options: BwrapProviderOptions) {
    super(new SandboxStore(options.rootDir, 'bwrap', options.defaults ?? DEFAULT_SANDBOX_SETTINGS));
    this.owner =
      process.getuid?.() === 0 ? (options.runAs ?? { uid: 65534, gid: 65534 }) : undefined;
    this.limiter = new SandboxLimiter(options.limits ?? {}, options.rootDir);
    assertBinds(options.binds ?? []);
    // Detected (and logged) at start rather than at the first sandbox.
    void this.limiter.backend().catch(() => undefined);
  }

  protected async prepare(paths: SandboxPaths): Promise<void> {
    if (!this.owner) return;
    await assertTraversable(paths.root, this.owner);
    await chown(paths.workspace, this.owner.uid, this.owner.gid);
    await chown(paths.home, this.owner.uid, this.owner.gid);
  }

  protected async startSession(record: SandboxRecord, paths: SandboxPaths): Promise<OpenedSession> {
    const timing = this.options.timing ?? DEFAULT_SESSION_TIMING;
    const driver = driverArguments({
      stateDir: INNER_STATE,
      workdir: BWRAP_WORKDIR,
      killGraceSeconds: timing.killGraceMs / 1000,
      sweepOnTimeout: true,
      ulimits: await this.limiter.ulimits(record.limits),
    });
    const egress = this.egress(record.id);
    const lease = await this.options.egressProxy?.gateway?.open(record.id);
    try {
      if (egress && this.owner) await assertTraversable(egress.hostSocketDir, this.owner);
      const opened = await this.spawnSession(record, paths, driver, egress);
      if (lease) opened.session.onExit(() => lease.close());
      return opened;
    } catch (error) {
      await lease?.close();
      throw error;
    }
  }

  /** Deletes the sandbox, then has the gateway forget its proxy and removes its cgroup. */
  override async delete(id: string): Promise<void> {
    await super.delete(id);
    await this.options.egressProxy?.gateway?.forget(id);
    await this.limiter.remove(id);
  }

  private async spawnSession(
    record: SandboxRecord,
    paths: SandboxPaths,
    driver: string[],
    egress: BwrapEgress | undefined,
  ): Promise<OpenedSession> {
    const timing = this.options.timing ?? DEFAULT_SESSION_TIMING;
    const layout = await this.layout(record, paths, egress);
    const egressEnv = this.options.egressProxy
      ? sandboxEgressEnvironment(this.options.egressProxy)
      : {};
    const session = await BashSession.start({
      ...(await this.confine(record, bwrapArguments(layout, driver))),
      env: safeEnvironment({
        home: INNER_HOME,
        user: 'agent',
        extra: { ...egressEnv, ...record.env },
      }),
      defaultTimeoutMs: record.defaultTimeoutMs,
      maxTimeoutMs: (this.options.defaults ?? DEFAULT_SANDBOX_SETTINGS).maxTimeoutMs,
      outputLimitBytes: record.outputLimitBytes,
      ...timing,
    });
    session.onExit(() => this.limiter.released(record.id));
    // File operations are served from inside the sandbox, never resolved on the host.
    const fs = new ConfinedFs(
      spawnedHelper((node, args) => this.fileHelperSpawn(record, paths, node, args)),
    );
    session.onExit(() => void fs.close());
    const files = new WorkdirFiles({ roots: { host: BWRAP_WORKDIR, inner: BWRAP_WORKDIR }, fs });
    const opened = { session, files, workdir: BWRAP_WORKDIR };
    const { hostPid, driverPid } = session;
    if (hostPid === undefined || driverPid === undefined) return opened;
    const watch = await this.limiter.watch(record.id, {
      limits: record.limits,
      hostPid,
      driverPid,
      commandMarker: `${INNER_STATE}/run.sh`,
      diskDirs: [paths.workspace, paths.home],
    });
    session.onExit(() => watch.stop());
    return { ...opened, annotate: (result) => watch.annotate(result) };
  }

  /**
   * The hook every sandbox process goes through (the session, one-shot commands, the file
   * helper): bubblewrap as the sandbox's host user, started inside the sandbox's cgroup (see
   * `SandboxLimiter`).
   */
  private confine(record: SandboxRecord, args: readonly string[]): Promise<SpawnCommand> {
    return this.limiter.confine(record.id, record.limits, {
      file: this.options.bwrapPath ?? '/usr/bin/bwrap',
      args,
      ...(this.owner ?? {}),
    });
  }

  /**
   * A one-shot command is a bubblewrap process of its own over the same directories, with no
   * network at all, as the sandbox user, under the sandbox's ulimits.
   */
  protected async oneShotSpawn(
    record: SandboxRecord,
    paths: SandboxPaths,
    argv: readonly string[],
  ): Promise<OneShotSpawn> {
    const layout = await this.layout(record, paths, undefined);
    const ulimits = `${ulimitCommand(await this.limiter.ulimits(record.limits))} || exit 125; exec "$@"`;
    const env = safeEnvironment({ home: INNER_HOME, user: 'agent', extra: record.env });
    return {
      ...(await this.confine(
        record,
        bwrapArguments(layout, ['-c', ulimits, 'caravel-one-shot', ...argv]),
      )),
      env: { ...env, ...HOOKLESS_GIT_ENV },
    };
  }

  /** The sandbox's file helper: a bubblewrap process of its own running the host's node. */
  private async fileHelperSpawn(
    record: SandboxRecord,
    paths: SandboxPaths,
    node: string,
    nodeArgs: readonly string[],
  ): Promise<ConfinedSpawn> {
    const layout = fileHelperLayout(await this.layout(record, paths, undefined), node);
    return {
      ...(await this.confine(record, bwrapArguments(layout, nodeArgs))),
      env: safeEnvironment({ home: INNER_HOME, user: 'agent' }),
    };
  }

  /** Where everything is, inside and outside, for one bubblewrap process. */
  private async layout(
    record: SandboxRecord,
    paths: SandboxPaths,
    egress: BwrapEgress | undefined,
  ): Promise<BwrapLayout> {
    this.mounts ??= this.hostMounts();
    return {
      systemMounts: await this.mounts,
      tmpBytes: record.limits.maxTmpBytes,
      stateDir: INNER_STATE,
      hostWorkspace: paths.workspace,
      hostHome: paths.home,
      innerWorkspace: BWRAP_WORKDIR,
      innerHome: INNER_HOME,
      sandboxUid: this.options.sandboxUid ?? 1000,
      sandboxGid: this.options.sandboxGid ?? 1000,
      hostname: HOSTNAME,
      bashPath: this.options.bashPath ?? '/bin/bash',
      extraBinds: resolveBinds(this.options.binds ?? [], paths),
      ...(egress ? { egress } : {}),
    };
  }

  /** The system paths, then the sandbox's /etc: chosen host entries and generated files. */
  private async hostMounts(): Promise<HostPathMount[]> {
    const generated = join(this.options.rootDir, '.etc');
    await writeGeneratedEtc(generated, {
      user: 'agent',
      uid: this.options.sandboxUid ?? 1000,
      gid: this.options.sandboxGid ?? 1000,
      home: INNER_HOME,
      hostname: HOSTNAME,
    });
    return [
      ...(await systemMounts(this.options.systemPaths ?? DEFAULT_SYSTEM_PATHS)),
      ...(await etcMounts(this.options.etcEntries ?? DEFAULT_ETC_ENTRIES, generated)),
    ];
  }

  private egress(sandboxId: string): BwrapEgress | undefined {
    const proxy = this.options.egressProxy;
    if (!proxy) return undefined;
    const socketDir = proxy.gateway?.socketDir(sandboxId) ?? proxy.socketDir?.(sandboxId);
    if (socketDir === undefined) {
      throw sandboxError('invalid_input', 'egressProxy needs a gateway or a socketDir');
    }
    return {
      hostSocketDir: socketDir,
      socatPath: proxy.socatPath ?? '/usr/bin/socat',
      port: proxy.port ?? DEFAULT_EGRESS_PORT,
    };
  }
}
