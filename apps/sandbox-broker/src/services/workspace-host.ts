import type { RepositoryRef } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import {
  BOT_IDENTITY_ENV,
  BwrapSandboxProvider,
  bwrapAvailable,
  LocalSandboxProvider,
  prepareWorkspace,
  snapshotWork,
  START_REF,
  type EgressProxyPool,
  type HostMirror,
  type OneShotRunner,
  type SandboxBind,
  type SandboxBindingRecord,
  type SandboxLogger,
  type SandboxProvider,
  type SandboxSetup,
  type WorkSnapshotter,
} from '@caravel/sandbox';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { SandboxBrokerConfig } from '../sandbox-broker.config.js';
import { GitHubGit } from './github-git.js';
import { sandboxEgressPool } from './sandbox-egress.js';
import { bwrapConfinement, sandboxDefaults } from './sandbox-limits.js';
import { SandboxMirrors, type MirrorSource } from './sandbox-mirrors.js';

/** The identity bubblewrap runs as when the broker is root. */
const SANDBOX_OWNER = { uid: 65534, gid: 65534 };
/** The forwarder inside a sandbox that bridges its loopback to the egress proxy's socket. */
const SOCAT = '/usr/bin/socat';

/** What a new sandbox is set up from. */
export interface WorkspaceRequest {
  branch: string;
  repository?: RepositoryRef;
  /** Start at this sandbox's HEAD (a clone of its workdir) instead of cloning the repository. */
  fromSandbox?: string;
  /** Start at this pull request head ref of the repository (`refs/pull/<N>/head`). */
  startRef?: string;
  /** Start at the base even when the repository has the branch (its pull request was merged). */
  atBase?: boolean;
}

/**
 * The broker host's side of its sandboxes: the provider, where workdirs and snapshots live on
 * this host, the sandboxes' egress proxies (their only way out), and the git work across the
 * boundary (a workdir's setup, the push, the bundle of a reclaimed sandbox's work), all of it
 * through each sandbox's host-owned mirror: no host process runs git in a workdir.
 */
export class WorkspaceHost {
  readonly rootDir: string;
  readonly snapshotDir: string;
  readonly provider: SandboxProvider & OneShotRunner;
  /** The sandboxes' mirrors: how commits cross the boundary. */
  readonly mirrors: SandboxMirrors;
  /** Per-sandbox egress proxies; null when sandboxes have no network at all. */
  readonly egress: EgressProxyPool | null;
  private readonly github: GitHubGit;

  /** The pod sweep of a kubernetes broker, run once before its first sandbox. */
  private reaped: Promise<unknown> | undefined;

  /**
   * The host with its provider; the kubernetes provider (and its API client, a second of start
   * time) is loaded only when it is the one configured.
   */
  static async open(
    config: Pick<SandboxBrokerConfig, 'sandbox' | 'egress' | 'github'>,
    logger: SandboxLogger,
    binds: readonly SandboxBind[] = [],
  ): Promise<WorkspaceHost> {
    const { sandbox } = config;
    if (sandbox.provider !== 'kubernetes' || !sandbox.kubernetes)
      return new WorkspaceHost(config, logger, binds);
    const { kubernetesProvider, KubernetesEgressRelay } = await import('./sandbox-kubernetes.js');
    const settings = sandbox.kubernetes;
    let relay: InstanceType<typeof KubernetesEgressRelay> | undefined;
    const host = new WorkspaceHost(config, logger, binds, (egress) => {
      relay = egress ? new KubernetesEgressRelay(egress, logger) : undefined;
      return kubernetesProvider(
        settings,
        resolve(sandbox.root),
        sandboxDefaults(sandbox),
        logger,
        GitHubGit.of(config.github).endpoints(),
        relay,
      );
    });
    if (relay) {
      await relay.listen({ port: settings.egressPort });
      host.relay = relay;
    }
    return host;
  }

  /** The kubernetes provider's egress relay (pods reach their proxies through it). */
  private relay: { close(): Promise<void> } | undefined;

  constructor(
    config: Pick<SandboxBrokerConfig, 'sandbox' | 'egress' | 'github'>,
    logger: SandboxLogger,
    binds: readonly SandboxBind[] = [],
    providerFor?: (egress: EgressProxyPool | null) => SandboxProvider & OneShotRunner,
  ) {
    const { sandbox } = config;
    this.github = GitHubGit.of(config.github);
    this.rootDir = resolve(sandbox.root);
    this.snapshotDir = resolve(
      sandbox.snapshotDir ?? join(dirname(this.rootDir), 'sandbox-snapshots'),
    );
    const asRoot = process.getuid?.() === 0;
    this.egress = sandboxEgressPool(config, this.github, asRoot ? SANDBOX_OWNER : undefined);
    const defaults = sandboxDefaults(sandbox);
    const provider = providerFor?.(this.egress);
    if (sandbox.provider === 'kubernetes' && !provider) {
      throw new AppError('CONFIG_INVALID', 'the kubernetes provider is made by WorkspaceHost.open');
    }
    this.provider =
      provider ??
      (sandbox.provider === 'bwrap'
        ? new BwrapSandboxProvider({
            rootDir: this.rootDir,
            runAs: SANDBOX_OWNER,
            defaults,
            ...bwrapConfinement(sandbox, logger),
            ...(this.egress ? { egressProxy: this.egressProxy(this.egress) } : {}),
            ...(binds.length > 0 ? { binds } : {}),
          })
        : new LocalSandboxProvider({ rootDir: this.rootDir, logger, defaults }));
    this.mirrors = new SandboxMirrors(this.rootDir, this.provider, this.github);
  }

  /** Fails with one clear line when the provider cannot run on this host. */
  async ensureReady(): Promise<void> {
    if (this.provider.name === 'bwrap' && !bwrapAvailable()) {
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        'bubblewrap is not installed: apt-get install bubblewrap, or set SANDBOX_PROVIDER=local (no isolation)',
      );
    }
    if (this.egress && this.provider.name === 'bwrap' && !existsSync(SOCAT)) {
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `socat is not installed (${SOCAT} bridges a sandbox to its egress proxy): apt-get install socat, or set SANDBOX_EGRESS=none (no network in sandboxes)`,
      );
    }
    await mkdir(this.rootDir, { recursive: true });
    const sweep = (this.provider as { reapOrphans?: () => Promise<unknown> }).reapOrphans;
    if (sweep) {
      this.reaped ??= sweep.call(this.provider).catch((error: unknown) => {
        this.reaped = undefined;
        throw error;
      });
      await this.reaped;
    }
  }

  /** Stops the sandboxes' egress proxies (their sessions end with the broker). */
  async close(): Promise<void> {
    await this.relay?.close();
    await this.egress?.closeAll();
  }

  /** The environment every new sandbox gets: the bot's git identity. */
  get sandboxEnv(): Record<string, string> {
    return { ...BOT_IDENTITY_ENV };
  }

  hostWorkdir(sandboxId: string): string {
    return join(this.rootDir, sandboxId, 'workspace');
  }

  /**
   * Sets a new sandbox up: its mirror (a clone of the thread's repository, with a pull request's
   * head fetched when `startRef` names one; another sandbox's HEAD; or one empty commit), then its
   * workdir cloned from the mirror on the thread's branch, started where {@link startOf} says.
   * A thread whose repository cannot be cloned fails here, before any run starts on nothing.
   */
  setupFor(request: WorkspaceRequest): SandboxSetup {
    return async (sandbox) => {
      const { repository } = request;
      await this.egress?.scope(sandbox.id, this.egressScope(repository));
      const mirror = await this.mirrors.build(sandbox.id, this.sourceOf(request));
      await prepareWorkspace({
        workdir: this.hostWorkdir(sandbox.id),
        cloneUrl: mirror.path,
        ...(await startOf(request, mirror)),
        branch: request.branch,
        origin: this.mirrors.remoteUrl(repository),
        ...(this.provider.name === 'bwrap' && process.getuid?.() === 0
          ? { owner: SANDBOX_OWNER }
          : {}),
      });
    };
  }

  private sourceOf(request: WorkspaceRequest): MirrorSource {
    if (request.fromSandbox) return { kind: 'sandbox', sandboxId: request.fromSandbox };
    if (request.repository) {
      const { repository, startRef } = request;
      return { kind: 'repository', repository, ...(startRef ? { startRef } : {}) };
    }
    return { kind: 'empty' };
  }

  /** How a sandbox reaches its proxy: the GitHub it names, and the pool that runs the proxy. */
  private egressProxy(pool: EgressProxyPool) {
    const { gitHost, apiHost } = this.github.endpoints();
    return { gitHost, apiHost, gateway: pool, socatPath: SOCAT };
  }

  /**
   * The repository a sandbox's proxy injects credentials for: the thread's, when it lives on the
   * configured GitHub (from the request, never from the workdir, which the agent controls).
   */
  private egressScope(repository: RepositoryRef | undefined): string | null {
    if (!repository || !this.github.hosting.isOnHost(repository)) return null;
    return `${repository.owner}/${repository.name}`;
  }

  /** Pushes the sandbox's `branch` to the thread's repository (see {@link SandboxMirrors.push}). */
  push(sandboxId: string, branch: string, repository: RepositoryRef | undefined) {
    return this.mirrors.push(sandboxId, branch, repository);
  }

  /** Saves a sandbox's unsaved work as `<snapshotDir>/<threadId>/<sandboxId>.bundle`. */
  readonly snapshot: WorkSnapshotter = async (binding: SandboxBindingRecord) => {
    const destination = join(this.snapshotDir, binding.threadId, `${binding.externalId}.bundle`);
    return snapshotWork(this.provider, binding.externalId, destination, binding.externalId);
  };
}

/**
 * Where a new workdir's branch starts: at {@link START_REF} (a fetched pull request head, or
 * another sandbox's HEAD); else at the branch as the repository has it, so a thread whose sandbox
 * was reclaimed continues from what it pushed instead of pushing a restart over it (not with
 * `atBase`: the branch's pull request was merged); else at the repository's base.
 */
async function startOf(
  request: WorkspaceRequest,
  mirror: HostMirror,
): Promise<{ startRef?: string; baseBranch?: string }> {
  if (request.fromSandbox || request.startRef) return { startRef: START_REF };
  const { repository } = request;
  if (repository && !request.atBase && (await mirror.hasBranch(request.branch))) {
    return { baseBranch: request.branch };
  }
  return repository?.baseBranch ? { baseBranch: repository.baseBranch } : {};
}
