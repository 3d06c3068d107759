import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, readlinkSync } from 'node:fs';
import { constants } from 'node:os';
import { join, resolve } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { descendants } from '../limits/process-tree.js';
import type { ServerWebSocket } from './fake-kubernetes-websocket.js';

/** The exec channels (the first byte of every WebSocket message). */
export const CHANNEL = {
  stdin: 0,
  stdout: 1,
  stderr: 2,
  status: 3,
  resize: 4,
  close: 255,
} as const;
/** The exec subprotocols the fake speaks, preferred first; only v5 has the close channel. */
export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'] as const;
export type ExecProtocol = (typeof EXEC_PROTOCOLS)[number];

/**
 * The `Status` an exec ends with on channel 3, as the kubelet writes it: `Success`, or a
 * `NonZeroExitCode` failure whose `ExitCode` cause carries the code as a decimal string.
 */
export function execStatus(exitCode: number): Record<string, unknown> {
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: exit status ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

/**
 * Where a pod's volumes are on this machine. A claim is a local directory; its subPath mounts
 * must sit at their own host path (a local process sees no mount namespace), which is what the
 * provider's `mountPaths: 'broker'` gives; an emptyDir is a directory of the pod's temp dir.
 */
export function podMountProblem(
  pod: V1Pod,
  claims: Readonly<Record<string, string>>,
): string | null {
  const container = pod.spec?.containers[0];
  for (const mount of container?.volumeMounts ?? []) {
    const volume = pod.spec?.volumes?.find((item) => item.name === mount.name);
    const claim = volume?.persistentVolumeClaim?.claimName;
    if (!claim) continue;
    const dir = claims[claim];
    if (dir === undefined) return `persistentvolumeclaim "${claim}" not found`;
    const source = resolve(join(dir, mount.subPath ?? ''));
    if (source !== resolve(mount.mountPath)) {
      return `the fake kubelet runs local processes: mount ${mount.mountPath} must be its source ${source}`;
    }
  }
  return null;
}

/** How the fake kubelet runs an exec: a plain local process, or one in a mount namespace. */
export type FakeIsolation = 'none' | 'bwrap';

/**
 * The bubblewrap arguments that give an exec a container's view of the filesystem: the system's
 * `/usr` (and its links) read-only, a fresh `/proc`, `/dev` and `/tmp`, the pod's claim mounts at
 * their mount paths and nothing else of the host; no network. A stand-in for the container
 * runtime, so that a path an exec follows resolves as it would in a pod.
 */
function containerView(pod: V1Pod, claims: Readonly<Record<string, string>>): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--ro-bind', '/usr', '/usr'];
  for (const name of ['/bin', '/lib', '/lib64', '/sbin']) {
    const info = (() => {
      try {
        return lstatSync(name);
      } catch {
        return undefined;
      }
    })();
    if (info?.isSymbolicLink()) args.push('--symlink', readlinkSync(name), name);
    else if (info) args.push('--ro-bind', name, name);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  const container = pod.spec?.containers[0];
  for (const mount of container?.volumeMounts ?? []) {
    const volume = pod.spec?.volumes?.find((item) => item.name === mount.name);
    const claim = volume?.persistentVolumeClaim?.claimName;
    const dir = claim ? claims[claim] : undefined;
    if (dir !== undefined)
      args.push('--bind', resolve(join(dir, mount.subPath ?? '')), mount.mountPath);
  }
  return [...args, '--chdir', container?.workingDir ?? '/'];
}

/**
 * The fake's kubelet: each exec is a local process (in the pod's working directory, with the
 * pod's environment) joined to the WebSocket by channel: 0 is its stdin, 1 and 2 its output, 3
 * its status when it ends; on v5, `255 0` closes its stdin; 4 (resize) is read and ignored. It
 * stands in for the container's processes, not for its isolation.
 */
export class FakeKubelet {
  private readonly processes = new Map<string, Set<ChildProcess>>();

  /**
   * @param isolation `bwrap`: each exec in its own bubblewrap namespace with only the pod's view
   * of the filesystem (`containerView`); `none` (default): plain local processes
   */
  constructor(
    private readonly claims: Readonly<Record<string, string>> = {},
    private readonly isolation: FakeIsolation = 'none',
  ) {}

  run(
    pod: V1Pod,
    command: readonly string[],
    socket: ServerWebSocket,
    protocol: ExecProtocol,
  ): void {
    const name = pod.metadata?.name ?? '';
    const container = pod.spec?.containers[0];
    const env = Object.fromEntries(
      (container?.env ?? []).map((item) => [item.name, item.value ?? '']),
    );
    const argv =
      this.isolation === 'bwrap'
        ? ['/usr/bin/bwrap', ...containerView(pod, this.claims), '--', ...command]
        : [...command];
    // A root kubelet starts an isolated exec as the pod's user (bubblewrap then maps it as is).
    const context = pod.spec?.securityContext;
    const runAs =
      this.isolation === 'bwrap' && process.getuid?.() === 0 && context?.runAsUser !== undefined
        ? { uid: context.runAsUser, gid: context.runAsGroup ?? context.runAsUser }
        : {};
    const child = spawn(argv[0] ?? '', argv.slice(1), {
      ...runAs,
      cwd: this.isolation === 'bwrap' ? '/' : (container?.workingDir ?? process.cwd()),
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const running = this.processes.get(name) ?? new Set<ChildProcess>();
    running.add(child);
    this.processes.set(name, running);
    const out = (channel: number) => (chunk: Buffer) =>
      socket.send(Buffer.concat([Buffer.from([channel]), chunk]));
    child.stdout.on('data', out(CHANNEL.stdout));
    child.stderr.on('data', out(CHANNEL.stderr));
    child.stdin.on('error', () => undefined);
    socket.messages((message) => {
      const channel = message[0];
      if (channel === CHANNEL.stdin) child.stdin.write(message.subarray(1));
      else if (
        channel === CHANNEL.close &&
        protocol === 'v5.channel.k8s.io' &&
        message[1] === CHANNEL.stdin
      )
        child.stdin.end();
    });
    // The client went away: like a dropped stream, the process loses its stdin and keeps running.
    socket.closed$(() => child.stdin.end());
    child.on('error', (error) => {
      running.delete(child);
      const status = {
        metadata: {},
        status: 'Failure',
        message: error.message,
        reason: 'InternalError',
        code: 500,
      };
      socket.send(
        Buffer.concat([Buffer.from([CHANNEL.status]), Buffer.from(JSON.stringify(status))]),
      );
      socket.close();
    });
    child.on('close', (code, signal) => {
      running.delete(child);
      const exitCode = code ?? 128 + (signal ? (constants.signals[signal] ?? 1) : 1);
      socket.send(
        Buffer.concat([
          Buffer.from([CHANNEL.status]),
          Buffer.from(JSON.stringify(execStatus(exitCode))),
        ]),
      );
      socket.close();
    });
  }

  /** Kills everything an exec of the pod started (the pod is being deleted). */
  async stop(podName: string): Promise<void> {
    const running = [...(this.processes.get(podName) ?? [])];
    this.processes.delete(podName);
    for (const child of running) {
      if (child.pid === undefined) continue;
      const tree = await descendants(child.pid).catch(() => []);
      for (const pid of [child.pid, ...tree.map((item) => item.pid)]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((name) => this.stop(name)));
  }
}
