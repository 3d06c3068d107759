import {
  DEFAULT_EGRESS_PORT,
  DEFAULT_SYSTEM_PATHS,
  egressSupervisorArguments,
  INNER_EGRESS_DIR,
  safeEnvironment,
} from '@caravel/sandbox';
import { spawn } from 'node:child_process';
import { abortReason } from '../errors/deadline.js';
import { lstat, open, readlink } from 'node:fs/promises';

/** A host directory and where it appears inside the task sandbox. */
export interface TaskMount {
  readonly host: string;
  readonly inner: string;
  readonly readOnly?: boolean;
}

/** How a task sandbox reaches an egress proxy (see `taskSandboxArguments`). */
export interface TaskEgress {
  /** The host directory holding the proxy's `egress.sock`, bound read-only at /run/caravel. */
  readonly socketDir: string;
  /** The forwarder inside the sandbox (socat, seen through the host's /usr). */
  readonly socatPath: string;
}

/** One command in a task sandbox. */
export interface TaskCommand {
  readonly command: string;
  readonly cwd: string;
  readonly mounts: readonly TaskMount[];
  /**
   * An egress proxy (the build phase only): the command's only way out, as in an agent sandbox.
   * Absent: no network at all. Never the host's network.
   */
  readonly egress?: TaskEgress;
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Where stdout and stderr go (appended). */
  readonly logFile: string;
  /** Kills the command; the run then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** The outcome of one command. */
export interface TaskCommandResult {
  readonly exitCode: number;
  readonly timedOut: boolean;
}

/** Host identity bubblewrap runs as when this process is root (as the sandbox provider does). */
export const TASK_SANDBOX_OWNER = { uid: 65534, gid: 65534 } as const;

let systemMounts: Promise<string[]> | undefined;

async function systemArguments(): Promise<string[]> {
  const args: string[] = [];
  for (const path of DEFAULT_SYSTEM_PATHS) {
    const info = await lstat(path).catch(() => undefined);
    if (info?.isSymbolicLink()) args.push('--symlink', await readlink(path), path);
    else if (info?.isDirectory()) args.push('--ro-bind', path, path);
  }
  return args;
}

/**
 * The bubblewrap command line of a task sandbox: the host's system directories read-only (the
 * stand-in for the image), the given mounts, uid 0 inside a user namespace (as a Dockerfile
 * expects; it is the unprivileged owner outside), every namespace unshared, network included (so
 * the host's 127.0.0.1 is out of reach). With an egress socket (the build phase), its directory
 * is bound read-only at /run/caravel and the agent sandbox's supervisor runs as pid 1, forwarding
 * the sandbox's own 127.0.0.1:3128 to the proxy.
 */
export async function taskSandboxArguments(cmd: TaskCommand): Promise<string[]> {
  systemMounts ??= systemArguments();
  const args = ['--unshare-all', '--die-with-parent', '--new-session'];
  args.push('--uid', '0', '--gid', '0', '--hostname', 'caravel-task', ...(await systemMounts));
  args.push('--dev', '/dev', '--proc', '/proc');
  for (const mount of cmd.mounts)
    args.push(mount.readOnly ? '--ro-bind' : '--bind', mount.host, mount.inner);
  if (cmd.egress) args.push('--ro-bind', cmd.egress.socketDir, INNER_EGRESS_DIR);
  args.push('--remount-ro', '/', '--chdir', cmd.cwd);
  const command = ['/bin/bash', '-c', cmd.command];
  if (!cmd.egress) return [...args, '--', ...command];
  const supervisor = egressSupervisorArguments({
    socatPath: cmd.egress.socatPath,
    port: DEFAULT_EGRESS_PORT,
    command,
  });
  return [...args, '--as-pid-1', '--', '/bin/bash', ...supervisor];
}

/** Runs one command in a task sandbox; the host process must be able to run bubblewrap. */
export async function runInTaskSandbox(
  cmd: TaskCommand,
  bwrapPath = '/usr/bin/bwrap',
): Promise<TaskCommandResult> {
  const args = await taskSandboxArguments(cmd);
  const log = await open(cmd.logFile, 'a');
  try {
    return await new Promise<TaskCommandResult>((resolve, reject) => {
      const child = spawn(bwrapPath, args, {
        stdio: ['ignore', log.fd, log.fd],
        env: safeEnvironment({ home: '/root', user: 'root', extra: cmd.env ?? {} }),
        ...(process.getuid?.() === 0 ? TASK_SANDBOX_OWNER : {}),
      });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, cmd.timeoutMs);
      const abort = (): void => void child.kill('SIGKILL');
      cmd.signal?.addEventListener('abort', abort, { once: true });
      const settle = (): void => {
        clearTimeout(timer);
        cmd.signal?.removeEventListener('abort', abort);
      };
      child.on('error', (error) => {
        settle();
        reject(error);
      });
      child.on('close', (code, signal) => {
        settle();
        if (cmd.signal?.aborted) reject(abortReason(cmd.signal));
        else resolve({ exitCode: code ?? 128 + (signal === 'SIGKILL' ? 9 : 15), timedOut });
      });
    });
  } finally {
    await log.close();
  }
}
