import { randomUUID } from 'node:crypto';
import { chown } from 'node:fs/promises';
import { ConfinedFs } from '../files/confined-fs.js';
import { WorkdirFiles, type FileOwner } from '../files/workdir-files.js';
import { sandboxErrorReason } from '../sandbox.errors.js';
import type { Sandbox, SandboxSpec } from '../sandbox.types.js';
import { BashSession, type SessionProcess } from '../session/bash-session.js';
import type { OpenedSession } from './directory-provider.js';
import {
  DEFAULT_SANDBOX_SETTINGS,
  type SandboxDefaults,
  type SandboxPaths,
  type SandboxRecord,
} from './sandbox-store.js';
import { DEFAULT_SESSION_TIMING, type SessionTiming } from './session-timing.js';

/**
 * The non-root user a container sandbox (`docker`, `kubernetes`) runs as: the configured one, or
 * 1000:1000 when this process is root (which then hands it the sandbox's directories:
 * `chownTo`), otherwise this process's own uid and gid.
 */
export function containerUser(configured: FileOwner | undefined): {
  user: FileOwner;
  chownTo: FileOwner | undefined;
} {
  const root = process.getuid?.() === 0;
  const user =
    configured ??
    (root
      ? { uid: 1000, gid: 1000 }
      : { uid: process.getuid?.() ?? 1000, gid: process.getgid?.() ?? 1000 });
  return { user, chownTo: root ? user : undefined };
}

/** Hands a new sandbox's workspace and home to the container's user (when this process is root). */
export async function handOver(paths: SandboxPaths, to: FileOwner | undefined): Promise<void> {
  if (!to) return;
  await chown(paths.workspace, to.uid, to.gid);
  await chown(paths.home, to.uid, to.gid);
}

/**
 * Creates a sandbox with its id fixed first, so that what a failed create left outside its
 * directory (a container, a pod) can be removed; a taken or invalid id removes nothing.
 */
export async function createRemovingLeftovers(
  spec: SandboxSpec,
  create: (spec: SandboxSpec & { id: string }) => Promise<Sandbox>,
  remove: (id: string) => Promise<void>,
): Promise<Sandbox> {
  const id = spec.id ?? `sbx-${randomUUID()}`;
  try {
    return await create({ ...spec, id });
  } catch (error) {
    const reason = sandboxErrorReason(error);
    if (reason !== 'sandbox_exists' && reason !== 'invalid_input')
      await remove(id).catch(() => undefined);
    throw error;
  }
}

/** What the file helper's exec reports when the image has no node (see `ConfinedFs`). */
const NODE_CHECK =
  'command -v "$1" >/dev/null 2>&1 || { printf "%s\\n" "file operations need node in the sandbox image: $1 was not found on its PATH (the image built from sandbox-image.Dockerfile has it)" >&2; exit 127; }; exec "$@"';

/**
 * The command line of a container sandbox's file helper, run as an exec in its container or pod
 * (as the sandbox user, in the sandbox's mount namespace): the image's `node` serving the helper
 * protocol. An image without it exits 127 with a line naming the requirement, and every file
 * operation then fails with it: there is no host-side way around.
 */
export function containerFileHelperCommand(
  bashPath: string,
  node: string,
  nodeArgs: readonly string[],
): string[] {
  return [bashPath, '-c', NODE_CHECK, 'caravel-files', node, ...nodeArgs];
}

/** The settings of a container provider (`docker`, `kubernetes`) that its sessions use. */
export interface ContainerSessionOptions {
  readonly bashPath?: string;
  readonly nodePath?: string;
  readonly defaults?: SandboxDefaults;
  readonly timing?: SessionTiming;
}

/** Starts a command as an exec in the sandbox's container or pod (the provider knows how). */
export type ContainerExec = (command: string[]) => Promise<SessionProcess & { disconnect(): void }>;

/**
 * A container sandbox's opened session: the persistent shell over `driver`, and its file
 * operations served from inside the container or pod by the file helper, started through
 * `startExec` as the sandbox user (never on the host's or the broker's view of the workdir); the
 * helper goes with the session. `workdir` is the same path for commands and for the helper.
 */
export async function openContainerSession(
  driver: SessionProcess,
  terminate: () => void,
  sandbox: { record: SandboxRecord; workdir: string; options: ContainerSessionOptions },
  startExec: ContainerExec,
): Promise<OpenedSession> {
  const { record, workdir, options } = sandbox;
  const session = await BashSession.attach(driver, terminate, {
    defaultTimeoutMs: record.defaultTimeoutMs,
    maxTimeoutMs: (options.defaults ?? DEFAULT_SANDBOX_SETTINGS).maxTimeoutMs,
    outputLimitBytes: record.outputLimitBytes,
    ...(options.timing ?? DEFAULT_SESSION_TIMING),
  });
  const fs = new ConfinedFs(async (nodeArgs) => {
    const bash = options.bashPath ?? '/bin/bash';
    const helper = await startExec(
      containerFileHelperCommand(bash, options.nodePath ?? 'node', nodeArgs),
    );
    return { process: helper, end: () => helper.disconnect() };
  });
  session.onExit(() => void fs.close());
  const roots = { host: workdir, inner: workdir };
  return { session, files: new WorkdirFiles({ roots, fs }), workdir };
}
