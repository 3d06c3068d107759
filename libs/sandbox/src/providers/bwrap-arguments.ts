import { egressSupervisorArguments, INNER_EGRESS_DIR } from '../proxy/sandbox-egress.js';

/** One read-only host path as bubblewrap should expose it (`source`, when set, is bound at `path`). */
export type HostPathMount =
  | { readonly kind: 'ro-bind'; readonly path: string; readonly source?: string }
  | { readonly kind: 'symlink'; readonly path: string; readonly target: string };

/** Everything `bwrapArguments` needs; pure data so the argument list can be unit-tested. */
export interface BwrapLayout {
  /** Host system paths, read-only (symlinks such as /bin -> usr/bin are recreated as symlinks). */
  readonly systemMounts: readonly HostPathMount[];
  readonly hostWorkspace: string;
  readonly hostHome: string;
  /** Where the workspace appears inside, e.g. /workspace. */
  readonly innerWorkspace: string;
  /** Where the home directory appears inside, e.g. /home/agent. */
  readonly innerHome: string;
  readonly sandboxUid: number;
  readonly sandboxGid: number;
  readonly hostname: string;
  readonly bashPath: string;
  /** Size cap of the sandbox's /tmp tmpfs in bytes (absent: the kernel's default, half the RAM). */
  readonly tmpBytes?: number;
  /**
   * A tmpfs of its own for the session driver's state and command output, so a /tmp the agent
   * filled cannot swallow a command's output (size as /tmp's).
   */
  readonly stateDir?: string;
  /**
   * When set, the sandbox's only way out: the host directory holding the egress proxy's socket is
   * bound read-only at /run/caravel, and a supervisor (pid 1) runs a forwarder from the sandbox's
   * own 127.0.0.1:<port> to it. The network namespace stays unshared. Absent: no network at all.
   */
  readonly egress?: BwrapEgress;
  /**
   * Further binds after the workspace and home, in order (a later one may sit inside an earlier
   * one): e.g. the workspace again at `/<repo>`, or a read-only folder of tool bundles.
   */
  readonly extraBinds?: readonly BwrapBind[];
}

/** One extra bind: `source` on the host at `path` inside. */
export interface BwrapBind {
  readonly source: string;
  readonly path: string;
  readonly writable: boolean;
}

/** How a sandbox reaches the egress proxy (see `BwrapLayout.egress`). */
export interface BwrapEgress {
  readonly hostSocketDir: string;
  readonly socatPath: string;
  readonly port: number;
}

/**
 * The bubblewrap command line: a new root made only of the listed read-only system paths, a
 * fresh /dev and /proc, a size-capped /tmp, the workspace and home bound writable, every
 * namespace unshared (so no network but an isolated loopback), a non-root uid/gid, no
 * controlling terminal, and the whole root remounted read-only. Binds land on bubblewrap's own tmpfs root, never under a
 * read-only bind, so no destination needs to exist on the host.
 */
export function bwrapArguments(layout: BwrapLayout, driverArgs: readonly string[]): string[] {
  const args = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--uid',
    String(layout.sandboxUid),
    '--gid',
    String(layout.sandboxGid),
    '--hostname',
    layout.hostname,
  ];
  for (const mount of layout.systemMounts) {
    if (mount.kind === 'symlink') args.push('--symlink', mount.target, mount.path);
    else args.push('--ro-bind', mount.source ?? mount.path, mount.path);
  }
  args.push('--dev', '/dev', '--proc', '/proc');
  const size = layout.tmpBytes === undefined ? [] : ['--size', String(layout.tmpBytes)];
  args.push(...size, '--tmpfs', '/tmp');
  if (layout.stateDir) args.push(...size, '--tmpfs', layout.stateDir);
  args.push('--bind', layout.hostHome, layout.innerHome);
  args.push('--bind', layout.hostWorkspace, layout.innerWorkspace);
  for (const bind of layout.extraBinds ?? []) {
    args.push(bind.writable ? '--bind' : '--ro-bind', bind.source, bind.path);
  }
  if (layout.egress) args.push('--ro-bind', layout.egress.hostSocketDir, INNER_EGRESS_DIR);
  args.push('--remount-ro', '/', '--chdir', layout.innerWorkspace);
  if (!layout.egress) return [...args, '--', layout.bashPath, ...driverArgs];
  const supervisor = egressSupervisorArguments({
    socatPath: layout.egress.socatPath,
    port: layout.egress.port,
    command: [layout.bashPath, ...driverArgs],
  });
  return [...args, '--as-pid-1', '--', layout.bashPath, ...supervisor];
}
