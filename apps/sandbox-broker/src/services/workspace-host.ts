import type { RepositoryRef } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import {
  BOT_IDENTITY,
  BwrapSandboxProvider,
  bwrapAvailable,
  hostGit,
  LocalSandboxProvider,
  prepareWorkspace,
  snapshotWork,
  type EgressProxyPool,
  type SandboxBindingRecord,
  type SandboxLogger,
  type SandboxProvider,
  type SandboxSetup,
  type WorkSnapshotter,
} from '@caravel/sandbox';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { SandboxBrokerSettings } from '../sandbox-broker.settings.js';
import { GitHubGit } from './github-git.js';
import { sandboxEgressPool } from './sandbox-egress.js';

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
}

/**
 * The broker host's side of its sandboxes: the provider, where workdirs and snapshots live on
 * this host, the sandboxes' egress proxies (their only way out), and the git work done from the
 * host (the clone on setup, the push, the bundle of a reclaimed sandbox's work).
 */
export class WorkspaceHost {
  readonly rootDir: string;
  readonly snapshotDir: string;
  readonly provider: SandboxProvider;
  /** Per-sandbox egress proxies; null when sandboxes have no network at all. */
  readonly egress: EgressProxyPool | null;
  private readonly github: GitHubGit;

  constructor(
    settings: SandboxBrokerSettings,
    private readonly logger: SandboxLogger,
  ) {
    this.github = GitHubGit.fromSettings(settings);
    this.rootDir = resolve(settings.SANDBOX_ROOT);
    this.snapshotDir = resolve(
      settings.SANDBOX_SNAPSHOT_DIR ?? join(dirname(this.rootDir), 'sandbox-snapshots'),
    );
    const asRoot = process.getuid?.() === 0;
    this.egress = sandboxEgressPool(settings, this.github, asRoot ? SANDBOX_OWNER : undefined);
    this.provider =
      settings.SANDBOX_PROVIDER === 'bwrap'
        ? new BwrapSandboxProvider({
            rootDir: this.rootDir,
            runAs: SANDBOX_OWNER,
            ...(this.egress ? { egressProxy: this.egressProxy(this.egress) } : {}),
          })
        : new LocalSandboxProvider({ rootDir: this.rootDir, logger });
  }

  /** Fails with one clear line when the provider cannot run on this host. */
  async ensureReady(): Promise<void> {
    if (this.provider.name === 'bwrap' && !bwrapAvailable()) {
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        'bubblewrap is not installed: apt-get install bubblewrap, or set SANDBOX_PROVIDER=local (no isolation)',
      );
    }
    if (this.egress && !existsSync(SOCAT)) {
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `socat is not installed (${SOCAT} bridges a sandbox to its egress proxy): apt-get install socat, or set SANDBOX_EGRESS=none (no network in sandboxes)`,
      );
    }
    await mkdir(this.rootDir, { recursive: true });
  }

  /** Stops the sandboxes' egress proxies (their sessions end with the broker). */
  async close(): Promise<void> {
    await this.egress?.closeAll();
  }

  /** The environment every new sandbox gets: the bot's git identity. */
  get sandboxEnv(): Record<string, string> {
    return {
      GIT_AUTHOR_NAME: BOT_IDENTITY.name,
      GIT_AUTHOR_EMAIL: BOT_IDENTITY.email,
      GIT_COMMITTER_NAME: BOT_IDENTITY.name,
      GIT_COMMITTER_EMAIL: BOT_IDENTITY.email,
    };
  }

  hostWorkdir(sandboxId: string): string {
    return join(this.rootDir, sandboxId, 'workspace');
  }

  /** Clones (or initialises) a new sandbox's workdir and checks out the thread's branch. */
  setupFor(request: WorkspaceRequest): SandboxSetup {
    return async (sandbox) => {
      const repository = request.repository;
      await this.egress?.scope(sandbox.id, this.egressScope(repository));
      const prepare = (cloneUrl: string | undefined, baseBranch = repository?.baseBranch ?? null) =>
        prepareWorkspace({
          workdir: this.hostWorkdir(sandbox.id),
          ...(cloneUrl ? { cloneUrl } : {}),
          ...(baseBranch ? { baseBranch } : {}),
          branch: request.branch,
          ...(this.provider.name === 'bwrap' && process.getuid?.() === 0
            ? { owner: SANDBOX_OWNER }
            : {}),
        });
      if (request.fromSandbox) {
        await this.cloneFromSandbox(sandbox.id, request.fromSandbox, prepare);
        return;
      }
      if (repository && this.github.hosting.hosts(repository)) {
        await this.cloneFromGitHub(sandbox.id, repository, prepare);
        return;
      }
      if (repository && !repository.cloneUrl) {
        this.logger.warn(
          `${repository.owner}/${repository.name} starts from an empty workspace: set GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY to clone it from GitHub`,
        );
      }
      await prepare(repository?.cloneUrl);
    };
  }

  /**
   * A GitHub repository is fetched through the credential proxy into a scratch bare clone, the
   * workdir is cloned from that, and `origin` then names GitHub again (for the push).
   */
  private async cloneFromGitHub(
    sandboxId: string,
    repository: RepositoryRef,
    prepare: (cloneUrl: string) => Promise<unknown>,
  ): Promise<void> {
    const url = this.github.hosting.cloneUrl(repository);
    const scratch = await mkdtemp(join(tmpdir(), 'caravel-clone-'));
    try {
      const branch = repository.baseBranch ? ['--branch', repository.baseBranch] : [];
      await this.github.through(`${repository.owner}/${repository.name}`, (proxy) =>
        hostGit(scratch, [...proxy, 'clone', '--quiet', '--bare', ...branch, url, '.']),
      );
      await prepare(scratch);
      await hostGit(this.hostWorkdir(sandboxId), ['remote', 'set-url', 'origin', url]);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
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

  /**
   * A sandbox that starts where another one is: the other's HEAD (commits only) cloned on the
   * host, and `origin` naming the other's origin again (or none). The clone goes through a bundle:
   * git refuses to read a repository owned by another user (the sandbox user) as a clone source.
   */
  private async cloneFromSandbox(
    sandboxId: string,
    sourceId: string,
    prepare: (cloneUrl: string, baseBranch: null) => Promise<unknown>,
  ): Promise<void> {
    const scratch = await mkdtemp(join(tmpdir(), 'caravel-start-'));
    try {
      const bundle = join(scratch, 'head.bundle');
      await hostGit(this.hostWorkdir(sourceId), ['bundle', 'create', '--quiet', bundle, 'HEAD']);
      await prepare(bundle, null);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    const origin = await this.origin(sourceId);
    await hostGit(
      this.hostWorkdir(sandboxId),
      origin ? ['remote', 'set-url', 'origin', origin] : ['remote', 'remove', 'origin'],
    );
  }

  baseCommit(sandboxId: string): Promise<string> {
    return hostGit(this.hostWorkdir(sandboxId), ['rev-parse', 'HEAD']);
  }

  /** The workdir's `origin`, or null when it has none. */
  async origin(sandboxId: string): Promise<string | null> {
    const workdir = this.hostWorkdir(sandboxId);
    const remotes = await hostGit(workdir, ['remote']);
    if (!remotes.split('\n').includes('origin')) return null;
    return hostGit(workdir, ['remote', 'get-url', 'origin']);
  }

  /**
   * Pushes `branch` to origin from the host (a GitHub origin through the credential proxy);
   * false when there is no origin to push to.
   */
  async push(
    sandboxId: string,
    branch: string,
  ): Promise<{ pushed: boolean; origin: string | null }> {
    const origin = await this.origin(sandboxId);
    if (origin === null) return { pushed: false, origin };
    const push = (proxy: string[]) =>
      hostGit(this.hostWorkdir(sandboxId), [
        ...proxy,
        'push',
        '--quiet',
        '--force-with-lease',
        'origin',
        branch,
      ]);
    const onGitHub = this.github.repositoryOf(origin);
    await (onGitHub ? this.github.through(onGitHub, push) : push([]));
    return { pushed: true, origin };
  }

  /** Saves a sandbox's unsaved work as `<snapshotDir>/<threadId>/<sandboxId>.bundle`. */
  readonly snapshot: WorkSnapshotter = async (binding: SandboxBindingRecord) => {
    const destination = join(this.snapshotDir, binding.threadId, `${binding.externalId}.bundle`);
    return snapshotWork(this.hostWorkdir(binding.externalId), destination, binding.externalId);
  };
}
