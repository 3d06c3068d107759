import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { CoreV1Api, Exec, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import type { FileOwner } from '../../files/workdir-files.js';
import { sandboxError, sandboxErrorReason } from '../../sandbox.errors.js';
import type { SandboxLogger } from '../../sandbox.types.js';
import { ContainerProvider } from '../container-provider.js';
import { openContainerSession } from '../container-sandbox.js';
import type { OpenedSession } from '../directory-provider.js';
import { driverExecCommand } from '../docker/docker-session.js';
import type { OneShotOptions, OneShotResult, OneShotSpawn } from '../one-shot.js';
import { safeEnvironment } from '../safe-env.js';
import type { SandboxDefaults, SandboxPaths, SandboxRecord } from '../sandbox-store.js';
import { DEFAULT_SESSION_TIMING, type SessionTiming } from '../session-timing.js';
import { kubernetesError } from './kubernetes-errors.js';
import { KubernetesExecProcess, type ExecTarget } from './kubernetes-exec.js';
import { kubernetesEgressEnvironment, type KubernetesEgress } from './kubernetes-egress.js';
import type { PodAddressBook } from './kubernetes-egress-relay.js';
import { runOneShotExec } from './kubernetes-one-shot.js';
import {
  ownerSelector,
  POD_HOME,
  POD_WORKDIR,
  podName,
  SANDBOX_CONTAINER,
  SANDBOX_ID_ANNOTATION,
  sandboxPod,
} from './kubernetes-pod-spec.js';
import { DEFAULT_POD_TIMING, KubernetesPods, type PodTiming } from './kubernetes-pods.js';

/** The image built from `providers/docker/sandbox-image.Dockerfile`, as for docker. */
export const DEFAULT_KUBERNETES_IMAGE = 'caravel/sandbox:bookworm';

/** Settings of the `kubernetes` provider. */
export interface KubernetesProviderOptions {
  /** The broker's mount of the sandbox claim: sandboxes live at `<rootDir>/<id>/{workspace,home}`. */
  readonly rootDir: string;
  /** The PersistentVolumeClaim that `rootDir` is (ReadWriteMany, or pods pinned to one node). */
  readonly claimName: string;
  /** Where `rootDir` sits inside the claim (default: its root). */
  readonly claimSubPath?: string;
  /** The namespace sandbox pods live in (the broker's Role is there). */
  readonly namespace: string;
  /** How to reach the API server (in a pod: `loadFromCluster()`). */
  readonly kubeConfig: KubeConfig;
  /**
   * The image every sandbox runs (default `DEFAULT_KUBERNETES_IMAGE`); it must have bash, and node
   * for file operations (served from inside the pod).
   */
  readonly image?: string;
  readonly imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /** A RuntimeClass for sandbox pods (`gvisor`); absent: the cluster's default runtime. */
  readonly runtimeClassName?: string;
  /** The owner label of this broker's pods (default `caravel`); the orphan sweep keeps to it. */
  readonly owner?: string;
  /** The non-root user of the pod (default this process's uid and gid, or 1000:1000 as root). */
  readonly user?: FileOwner;
  /** What the scheduler reserves per sandbox (default 0.25 CPU, 512 MiB; capped by the limits). */
  readonly requests?: { readonly cpus: number; readonly memoryBytes: number };
  /** The pod's ephemeral storage limit (default 1 GiB: logs and scratch; /tmp is in memory). */
  readonly ephemeralStorageBytes?: number;
  /**
   * `fixed` (default): the pod sees /workspace and /home/agent. `broker`: it mounts them at the
   * broker's own paths (the loopback fake runs execs as local processes, which need that).
   */
  readonly mountPaths?: 'fixed' | 'broker';
  /** Egress through the broker's credential proxy; absent: the pod gets no proxy settings. */
  readonly egress?: KubernetesEgress;
  /** Told each running pod's address (the egress relay tells a connection's sandbox by it). */
  readonly podAddresses?: PodAddressBook;
  readonly bashPath?: string;
  /** node inside the image, which serves file operations (default `node`, found on its PATH). */
  readonly nodePath?: string;
  readonly defaults?: SandboxDefaults;
  readonly timing?: SessionTiming;
  readonly podTiming?: Partial<PodTiming>;
  readonly logger?: SandboxLogger;
}

const GIB = 1024 ** 3;

/**
 * Each sandbox is a long-lived pod (see `sandboxPod`: non-root, no capabilities, read-only root,
 * no token, limits as resources, gVisor when configured) whose workspace and home are the
 * broker's directories of the sandbox claim; each session is an exec of the framed bash driver
 * over the exec WebSocket, one-shot commands are execs of their own, and file operations are
 * served by a helper exec of the image's node (`ConfinedFs`), so the kernel resolves their paths
 * in the pod, as the sandbox user, never on the broker's mount of the claim. A pod that is gone is created again on
 * `connect`: the work lives on the claim, not in the pod.
 */
export class KubernetesSandboxProvider extends ContainerProvider {
  readonly name = 'kubernetes' as const;
  private readonly pods: KubernetesPods;
  private readonly exec: Exec;

  constructor(private readonly options: KubernetesProviderOptions) {
    super('kubernetes', options);
    const api = options.kubeConfig.makeApiClient(CoreV1Api);
    this.pods = new KubernetesPods(api, options.namespace, {
      ...DEFAULT_POD_TIMING,
      ...options.podTiming,
    });
    this.exec = new Exec(options.kubeConfig);
  }

  override async runOneShot(
    id: string,
    argv: readonly string[],
    options: OneShotOptions,
  ): Promise<OneShotResult> {
    const { record, paths } = await this.store.load(id);
    await this.ensurePod(record, paths);
    return runOneShotExec(this.target(id), argv, options);
  }

  /**
   * Deletes this broker's pods whose sandbox no longer exists (a delete or create that a crash
   * cut short) and pods that ended (they are made again on the next session); returns the pod
   * names removed. Run at start: a restarted broker finds them by label.
   */
  async reapOrphans(): Promise<string[]> {
    const reaped: string[] = [];
    for (const pod of await this.pods.list(ownerSelector(this.owner))) {
      const name = pod.metadata?.name;
      if (!name || pod.metadata?.deletionTimestamp) continue;
      if (!(await this.orphaned(pod))) continue;
      await this.pods.delete(name);
      reaped.push(name);
    }
    if (reaped.length > 0)
      (this.options.logger?.info ?? this.options.logger?.warn)?.call(
        this.options.logger,
        'reaped sandbox pods',
        {
          pods: reaped,
        },
      );
    return reaped;
  }

  /** Deletes the sandbox's pod and forgets its address (the pod no longer speaks for it). */
  protected async removeContainer(id: string): Promise<void> {
    this.options.podAddresses?.unregister(id);
    await this.pods.delete(podName(id), id);
  }

  /** Never called: `runOneShot` runs its command as an exec (no local process to spawn). */
  protected oneShotSpawn(): Promise<OneShotSpawn> {
    return Promise.reject(sandboxError('unsupported', 'kubernetes one-shot commands are execs'));
  }

  protected async startSession(record: SandboxRecord, paths: SandboxPaths): Promise<OpenedSession> {
    const timing = this.options.timing ?? DEFAULT_SESSION_TIMING;
    await this.ensurePod(record, paths);
    const mounts = this.mounts(paths);
    const { cmd, killCmd } = driverExecCommand({
      sessionId: randomBytes(6).toString('hex'),
      bashPath: this.options.bashPath ?? '/bin/bash',
      user: this.user,
      env: {},
      killGraceSeconds: timing.killGraceMs / 1000,
      workdir: mounts.workdir,
      ulimits: {
        fileSizeKiB: Math.floor(record.limits.maxFileBytes / 1024),
        openFiles: record.limits.maxOpenFiles,
      },
    });
    const target = this.target(record.id);
    const driver = await KubernetesExecProcess.start(target, cmd).catch((error: unknown) => {
      throw kubernetesError(`starting a session in pod ${target.pod}`, error, record.id);
    });
    const terminate = (): void => {
      void KubernetesExecProcess.start(target, killCmd)
        .then((kill) => new Promise((resolve) => kill.once('exit', resolve)))
        .catch(() => undefined)
        .finally(() => driver.disconnect());
    };
    // File operations are served from inside the pod, never on the broker's mount of the claim.
    const sandbox = { record, workdir: mounts.workdir, options: this.options };
    return openContainerSession(driver, terminate, sandbox, (command) =>
      KubernetesExecProcess.start(target, command).catch((error: unknown) => {
        throw kubernetesError(`starting the file helper in pod ${target.pod}`, error, record.id);
      }),
    );
  }

  private get owner(): string {
    return this.options.owner ?? 'caravel';
  }

  private target(sandboxId: string): ExecTarget {
    return {
      exec: this.exec,
      namespace: this.options.namespace,
      pod: podName(sandboxId),
      container: SANDBOX_CONTAINER,
    };
  }

  private mounts(paths: SandboxPaths): { workdir: string; home: string } {
    return this.options.mountPaths === 'broker'
      ? { workdir: paths.workspace, home: paths.home }
      : { workdir: POD_WORKDIR, home: POD_HOME };
  }

  /** The sandbox's pod, created (or made again when it ended) and running. */
  private async ensurePod(record: SandboxRecord, paths: SandboxPaths): Promise<V1Pod> {
    const name = podName(record.id);
    const existing = await this.pods.read(name, record.id);
    const phase = existing?.status?.phase;
    if (existing && (phase === 'Failed' || phase === 'Succeeded'))
      await this.pods.delete(name, record.id);
    if (!existing || phase === 'Failed' || phase === 'Succeeded') {
      await this.pods.create(this.podFor(record, paths), record.id).catch((error: unknown) => {
        // A concurrent session got there first.
        if (sandboxErrorReason(error) !== 'sandbox_exists') throw error;
      });
    }
    const running = await this.pods.waitRunning(name, record.id);
    const address = running.status?.podIP;
    if (address) this.options.podAddresses?.register(address, record.id);
    return running;
  }

  private podFor(record: SandboxRecord, paths: SandboxPaths): V1Pod {
    const mounts = this.mounts(paths);
    const claimRoot = this.options.claimSubPath ?? '';
    const egress = this.options.egress ? kubernetesEgressEnvironment(this.options.egress) : {};
    return sandboxPod({
      sandboxId: record.id,
      owner: this.owner,
      image: this.options.image ?? DEFAULT_KUBERNETES_IMAGE,
      user: this.user,
      claimName: this.options.claimName,
      subPaths: {
        workspace: posix.join(claimRoot, record.id, 'workspace'),
        home: posix.join(claimRoot, record.id, 'home'),
      },
      mountPaths: mounts,
      env: safeEnvironment({
        home: mounts.home,
        user: 'agent',
        extra: { ...egress, ...record.env },
      }),
      limits: record.limits,
      requests: this.options.requests ?? { cpus: 0.25, memoryBytes: 512 * 1024 ** 2 },
      ephemeralStorageBytes: this.options.ephemeralStorageBytes ?? GIB,
      ...(this.options.runtimeClassName ? { runtimeClassName: this.options.runtimeClassName } : {}),
      ...(this.options.imagePullPolicy ? { imagePullPolicy: this.options.imagePullPolicy } : {}),
    });
  }

  private async orphaned(pod: V1Pod): Promise<boolean> {
    const phase = pod.status?.phase;
    if (phase === 'Failed' || phase === 'Succeeded') return true;
    const id = pod.metadata?.annotations?.[SANDBOX_ID_ANNOTATION];
    if (!id) return true;
    return this.store.load(id).then(
      () => false,
      (error: unknown) => {
        if (
          sandboxErrorReason(error) === 'sandbox_not_found' ||
          sandboxErrorReason(error) === 'invalid_input'
        )
          return true;
        throw error;
      },
    );
  }
}
