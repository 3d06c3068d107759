import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import type { FileOwner } from '../../files/workdir-files.js';
import { DEFAULT_EGRESS_PORT, sandboxEgressEnvironment } from '../../proxy/sandbox-egress.js';
import type { SandboxEgressSettings } from '../../proxy/sandbox-egress.js';
import { ContainerProvider } from '../container-provider.js';
import { openContainerSession } from '../container-sandbox.js';
import type { OpenedSession } from '../directory-provider.js';
import { HOOKLESS_GIT_ENV, type OneShotSpawn } from '../one-shot.js';
import { safeEnvironment } from '../safe-env.js';
import type { SandboxDefaults, SandboxPaths, SandboxRecord } from '../sandbox-store.js';
import { DEFAULT_SESSION_TIMING, type SessionTiming } from '../session-timing.js';
import {
  containerName,
  containerSpec,
  DOCKER_HOME,
  DOCKER_WORKDIR,
} from './docker-container-spec.js';
import { dockerError, engineStatus } from './docker-errors.js';
import { startAttachedExec, startDriverExec } from './docker-session.js';

/** The image built from `sandbox-image.Dockerfile` (bash, coreutils, git, less, socat, node). */
export const DEFAULT_DOCKER_IMAGE = 'caravel/sandbox:bookworm';

/** Settings of the `docker` provider. */
export interface DockerProviderOptions {
  /**
   * Host directory of the sandboxes (`<rootDir>/<id>/{workspace,home}`), bound into each
   * container: the engine must see the same path, so it runs on this host.
   */
  readonly rootDir: string;
  /** An engine client (default: `new Docker()`, i.e. /var/run/docker.sock). */
  readonly docker?: Docker;
  /**
   * The image every sandbox runs (default `DEFAULT_DOCKER_IMAGE`); it must have bash, and node
   * for file operations (served from inside the container).
   */
  readonly image?: string;
  /** bash inside the image (default /bin/bash). */
  readonly bashPath?: string;
  /** node inside the image, which serves file operations (default `node`, found on its PATH). */
  readonly nodePath?: string;
  /**
   * The non-root user commands run as (default 1000:1000 when this process is root, which then
   * hands it the workspace and home; otherwise this process's own uid and gid).
   */
  readonly user?: FileOwner;
  /** Size of each sandbox's /tmp tmpfs (default: the sandbox's `limits.maxTmpBytes`). */
  readonly tmpBytes?: number;
  readonly defaults?: SandboxDefaults;
  readonly timing?: SessionTiming;
  /** Let the sandbox reach out through the egress proxy's socket; absent (the default): no network. */
  readonly egressProxy?: DockerEgressProxyOptions;
}

/** How a docker sandbox reaches the host's egress proxy (the same socket scheme as `bwrap`). */
export interface DockerEgressProxyOptions extends SandboxEgressSettings {
  /** The host directory holding this sandbox's `egress.sock`, bound read-only at /run/caravel. */
  readonly socketDir: (sandboxId: string) => string;
  /** socat inside the image (default /usr/bin/socat). */
  readonly socatPath?: string;
}

const PING_TIMEOUT_MS = 5_000;

/**
 * Whether a Docker engine answers; resolves to null when it does, or to why not (for a skip
 * message or a start-up error). Never rejects.
 */
export async function dockerEngineProblem(docker: Docker = new Docker()): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${PING_TIMEOUT_MS} ms`), PING_TIMEOUT_MS);
  });
  const ping = docker.ping().then(
    () => null,
    (error: unknown) => dockerError('pinging', error).message,
  );
  const problem = await Promise.race([ping, timeout]);
  clearTimeout(timer);
  return problem;
}

/**
 * Each sandbox is a long-lived container (see `containerSpec`: read-only root, non-root user, no
 * capabilities, no network, pids/memory/file limits) with the workspace and home bound from the
 * host; each session is a `docker exec` of the framed bash driver, attached over the exec's
 * stream, and file operations are served by a helper exec of the image's node (`ConfinedFs`), so
 * the kernel resolves their paths in the container, as the sandbox user. A container that is gone (engine restart, pruned) is created again on `connect`: the
 * work lives in the bound workspace, not in the container.
 */
export class DockerSandboxProvider extends ContainerProvider {
  readonly name = 'docker' as const;
  private readonly docker: Docker;

  constructor(private readonly options: DockerProviderOptions) {
    super('docker', options);
    this.docker = options.docker ?? new Docker();
  }

  /**
   * A one-shot command is a `docker exec` in the sandbox's container (the broker's host then needs
   * the docker CLI), as the sandbox user, with the session's environment and no TTY.
   */
  protected async oneShotSpawn(
    record: SandboxRecord,
    paths: SandboxPaths,
    argv: readonly string[],
  ): Promise<OneShotSpawn> {
    await this.ensureContainer(record, paths, this.environment(record));
    const env = { ...this.environment(record), ...HOOKLESS_GIT_ENV };
    const envFlags = Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
    return {
      file: 'docker',
      args: [
        'exec',
        '--user',
        `${this.user.uid}:${this.user.gid}`,
        '--workdir',
        DOCKER_WORKDIR,
        ...envFlags,
        containerName(record.id),
        ...argv,
      ],
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
    };
  }

  protected async startSession(record: SandboxRecord, paths: SandboxPaths): Promise<OpenedSession> {
    const timing = this.options.timing ?? DEFAULT_SESSION_TIMING;
    const env = this.environment(record);
    const container = await this.ensureContainer(record, paths, env);
    const { driver, terminate } = await startDriverExec(container, {
      sessionId: randomBytes(6).toString('hex'),
      bashPath: this.options.bashPath ?? '/bin/bash',
      user: this.user,
      env,
      killGraceSeconds: timing.killGraceMs / 1000,
    }).catch((error: unknown) => {
      throw dockerError(`starting a session in ${containerName(record.id)}`, error, record.id);
    });
    // File operations are served from inside the container, never on the host's bind of it.
    const sandbox = { record, workdir: DOCKER_WORKDIR, options: this.options };
    return openContainerSession(driver, terminate, sandbox, (command) =>
      startAttachedExec(container, { cmd: command, user: this.user, env }).catch(
        (error: unknown) => {
          throw dockerError(
            `starting the file helper in ${containerName(record.id)}`,
            error,
            record.id,
          );
        },
      ),
    );
  }

  private environment(record: SandboxRecord): Record<string, string> {
    const egress = this.options.egressProxy
      ? sandboxEgressEnvironment(this.options.egressProxy)
      : {};
    return safeEnvironment({
      home: DOCKER_HOME,
      user: 'agent',
      extra: { ...egress, ...record.env },
    });
  }

  /** The sandbox's container, created and started as needed. */
  private async ensureContainer(
    record: SandboxRecord,
    paths: SandboxPaths,
    env: Record<string, string>,
  ): Promise<Docker.Container> {
    const container = this.docker.getContainer(containerName(record.id));
    const running = await container.inspect().then(
      (info) => info.State.Running,
      (error: unknown) => {
        if (engineStatus(error) === 404) return undefined;
        throw dockerError(`inspecting ${containerName(record.id)}`, error, record.id);
      },
    );
    if (running === true) return container;
    if (running === undefined) {
      await this.docker
        .createContainer(containerSpec(this.containerInput(record, paths, env)))
        .catch((error: unknown) => {
          if (engineStatus(error) !== 409)
            throw dockerError('creating the container', error, record.id);
        });
    }
    await container.start().catch((error: unknown) => {
      // 304: already started (a concurrent session got there first).
      if (engineStatus(error) !== 304)
        throw dockerError('starting the container', error, record.id);
    });
    return container;
  }

  private containerInput(record: SandboxRecord, paths: SandboxPaths, env: Record<string, string>) {
    const proxy = this.options.egressProxy;
    return {
      sandboxId: record.id,
      image: this.options.image ?? DEFAULT_DOCKER_IMAGE,
      user: this.user,
      hostWorkspace: paths.workspace,
      hostHome: paths.home,
      env,
      limits: record.limits,
      tmpBytes: this.options.tmpBytes ?? record.limits.maxTmpBytes,
      ...(proxy
        ? {
            egress: {
              hostSocketDir: proxy.socketDir(record.id),
              socatPath: proxy.socatPath ?? '/usr/bin/socat',
              port: proxy.port ?? DEFAULT_EGRESS_PORT,
            },
          }
        : {}),
    };
  }

  protected async removeContainer(id: string): Promise<void> {
    await this.docker
      .getContainer(containerName(id))
      .remove({ force: true, v: true })
      .catch((error: unknown) => {
        if (engineStatus(error) !== 404) throw dockerError('removing the container', error, id);
      });
  }
}
