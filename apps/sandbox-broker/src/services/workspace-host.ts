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
  type SandboxBindingRecord,
  type SandboxLogger,
  type SandboxProvider,
  type SandboxSetup,
  type WorkSnapshotter,
} from '@caravel/sandbox';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { SandboxBrokerSettings } from '../sandbox-broker.settings.js';

/** The identity bubblewrap runs as when the broker is root. */
const SANDBOX_OWNER = { uid: 65534, gid: 65534 };

/** What a new sandbox is set up from. */
export interface WorkspaceRequest {
  branch: string;
  repository?: RepositoryRef;
}

/**
 * The broker host's side of its sandboxes: the provider, where workdirs and snapshots live on
 * this host, and the git work done from the host because the sandbox has no network (the clone
 * on setup, the push, the bundle of a reclaimed sandbox's work).
 */
export class WorkspaceHost {
  readonly rootDir: string;
  readonly snapshotDir: string;
  readonly provider: SandboxProvider;

  constructor(settings: SandboxBrokerSettings, logger: SandboxLogger) {
    this.rootDir = resolve(settings.SANDBOX_ROOT);
    this.snapshotDir = resolve(
      settings.SANDBOX_SNAPSHOT_DIR ?? join(dirname(this.rootDir), 'sandbox-snapshots'),
    );
    this.provider =
      settings.SANDBOX_PROVIDER === 'bwrap'
        ? new BwrapSandboxProvider({ rootDir: this.rootDir, runAs: SANDBOX_OWNER })
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
    await mkdir(this.rootDir, { recursive: true });
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
      await prepareWorkspace({
        workdir: this.hostWorkdir(sandbox.id),
        ...(request.repository?.cloneUrl ? { cloneUrl: request.repository.cloneUrl } : {}),
        ...(request.repository?.baseBranch ? { baseBranch: request.repository.baseBranch } : {}),
        branch: request.branch,
        ...(this.provider.name === 'bwrap' && process.getuid?.() === 0
          ? { owner: SANDBOX_OWNER }
          : {}),
      });
    };
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

  /** Pushes `branch` to origin from the host; false when there is no origin to push to. */
  async push(
    sandboxId: string,
    branch: string,
  ): Promise<{ pushed: boolean; origin: string | null }> {
    const origin = await this.origin(sandboxId);
    if (origin === null) return { pushed: false, origin };
    await hostGit(this.hostWorkdir(sandboxId), [
      'push',
      '--quiet',
      '--force-with-lease',
      'origin',
      branch,
    ]);
    return { pushed: true, origin };
  }

  /** Saves a sandbox's unsaved work as `<snapshotDir>/<threadId>/<sandboxId>.bundle`. */
  readonly snapshot: WorkSnapshotter = async (binding: SandboxBindingRecord) => {
    const destination = join(this.snapshotDir, binding.threadId, `${binding.externalId}.bundle`);
    return snapshotWork(this.hostWorkdir(binding.externalId), destination, binding.externalId);
  };
}
