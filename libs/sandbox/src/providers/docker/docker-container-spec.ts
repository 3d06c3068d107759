import type { ContainerCreateOptions } from 'dockerode';
import type { FileOwner } from '../../files/workdir-files.js';
import { egressSupervisorArguments, INNER_EGRESS_DIR } from '../../proxy/sandbox-egress.js';
import type { SandboxLimits } from '../../sandbox.types.js';

/** Where things appear inside a docker sandbox. */
export const DOCKER_WORKDIR = '/workspace';
export const DOCKER_HOME = '/home/agent';
/** Labels every container of the provider carries (for operators and sweeps). */
export const DOCKER_LABELS = {
  sandboxId: 'caravel.sandbox.id',
  provider: 'caravel.sandbox.provider',
};

/** Keeps the container alive between sessions, with nothing but a shell in the image. */
const KEEP_ALIVE = ['/bin/sh', '-c', 'while :; do sleep 3600; done'];

/** What the container of one sandbox is made of. */
export interface DockerContainerInput {
  readonly sandboxId: string;
  readonly image: string;
  readonly user: FileOwner;
  readonly hostWorkspace: string;
  readonly hostHome: string;
  /** The complete environment (the safe set plus the spec's), as for the session. */
  readonly env: Readonly<Record<string, string>>;
  readonly limits: SandboxLimits;
  /** Size of the writable /tmp (a tmpfs). */
  readonly tmpBytes: number;
  /** The egress proxy's socket directory and forwarder, when the sandbox may reach out through it. */
  readonly egress?: {
    readonly hostSocketDir: string;
    readonly socatPath: string;
    readonly port: number;
  };
}

/** The container name of a sandbox (sandbox ids are valid container name characters). */
export function containerName(sandboxId: string): string {
  return `caravel-sbx-${sandboxId}`;
}

/**
 * The `POST /containers/create` body for one sandbox: the workspace and home bound from the
 * host (so file operations work host-side and the work outlives the container), a read-only root
 * with a private /tmp, a non-root user, every capability dropped, no new privileges, an init
 * process that reaps orphans, no network at all, and the limits as cgroup and rlimit settings
 * (processes, memory with no swap, CPUs, file size, open files; /tmp's size on its tmpfs).
 * With an egress proxy the network stays `none`: the proxy's Unix socket is bound in and the
 * egress supervisor (socat from the container's loopback to the socket) becomes the main process.
 */
export function containerSpec(input: DockerContainerInput): ContainerCreateOptions {
  const binds = [
    `${input.hostWorkspace}:${DOCKER_WORKDIR}:rw`,
    `${input.hostHome}:${DOCKER_HOME}:rw`,
    ...(input.egress ? [`${input.egress.hostSocketDir}:${INNER_EGRESS_DIR}:ro`] : []),
  ];
  const main = input.egress
    ? [
        '/bin/bash',
        ...egressSupervisorArguments({
          socatPath: input.egress.socatPath,
          port: input.egress.port,
          command: KEEP_ALIVE,
        }),
      ]
    : KEEP_ALIVE;
  return {
    name: containerName(input.sandboxId),
    Image: input.image,
    Entrypoint: [],
    Cmd: main,
    User: `${input.user.uid}:${input.user.gid}`,
    WorkingDir: DOCKER_WORKDIR,
    Hostname: 'caravel-sandbox',
    Env: environmentList(input.env),
    Labels: { [DOCKER_LABELS.sandboxId]: input.sandboxId, [DOCKER_LABELS.provider]: 'docker' },
    HostConfig: {
      Binds: binds,
      NetworkMode: 'none',
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': `rw,nosuid,nodev,mode=1777,size=${input.tmpBytes}` },
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Init: true,
      PidsLimit: input.limits.maxProcesses,
      Memory: input.limits.maxMemoryBytes,
      MemorySwap: input.limits.maxMemoryBytes,
      NanoCpus: Math.round(input.limits.maxCpus * 1e9),
      Ulimits: [
        { Name: 'nofile', Soft: input.limits.maxOpenFiles, Hard: input.limits.maxOpenFiles },
        { Name: 'fsize', Soft: input.limits.maxFileBytes, Hard: input.limits.maxFileBytes },
      ],
    },
  };
}

/** `NAME=value` entries, as the Docker API takes an environment. */
export function environmentList(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([name, value]) => `${name}=${value}`);
}
