import type { RepositoryRef } from '@caravel/contracts';
import { SandboxRepository } from '@caravel/db';
import { AppError } from '@caravel/errors';
import {
  BOT_IDENTITY,
  BwrapSandboxProvider,
  bwrapAvailable,
  hostGit,
  LocalSandboxProvider,
  prepareWorkspace,
  ToolSandboxAdapter,
  type Sandbox,
  type SandboxProvider,
} from '@caravel/sandbox';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AGENT_SETTINGS, type AgentSettings } from '../agent-runner.settings.js';

/** The identity bubblewrap runs as when this process is root. */
const SANDBOX_OWNER = { uid: 65534, gid: 65534 };

/** A thread's sandbox, ready for a run: the session, the tools' view of it, and its git state. */
export interface ThreadWorkspace {
  sandbox: Sandbox;
  tools: ToolSandboxAdapter;
  /** The workdir on this host (for host-side git: clone, push). */
  hostWorkdir: string;
  branch: string;
  /** The commit the run starts from; the run's diff is taken against it. */
  baseCommit: string;
}

/** The branch a thread's work lives on. */
export function threadBranch(threadId: string): string {
  return `caravel/${threadId.slice(0, 8)}`;
}

/**
 * Gives each thread one sandbox: reconnects to the one bound to the thread, or creates, prepares
 * and only then binds a new one. (The sandbox broker takes this over with its own issue.)
 */
@Injectable()
export class ThreadSandboxService implements OnModuleDestroy {
  private readonly log = new Logger('ThreadSandbox');
  private readonly rootDir: string;
  private readonly provider: SandboxProvider;
  private readonly open = new Map<string, Sandbox>();
  /** Checked on the first run, not at every run (it spawns `bwrap --version`). */
  private bwrapInstalled: boolean | undefined;

  constructor(
    @Inject(AGENT_SETTINGS) settings: AgentSettings,
    @Inject(SandboxRepository) private readonly sandboxes: SandboxRepository,
  ) {
    this.rootDir = resolve(settings.SANDBOX_ROOT);
    const logger = { warn: (message: string) => this.log.warn(message) };
    this.provider =
      settings.SANDBOX_PROVIDER === 'bwrap'
        ? new BwrapSandboxProvider({ rootDir: this.rootDir, runAs: SANDBOX_OWNER })
        : new LocalSandboxProvider({ rootDir: this.rootDir, logger });
  }

  async forRun(threadId: string, repository?: RepositoryRef): Promise<ThreadWorkspace> {
    if (this.provider.name === 'bwrap' && !(this.bwrapInstalled ??= bwrapAvailable())) {
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        'bubblewrap is not installed: apt-get install bubblewrap, or set SANDBOX_PROVIDER=local (no isolation)',
      );
    }
    await mkdir(this.rootDir, { recursive: true });
    const bound = await this.sandboxes.getByThread(threadId);
    const sandbox = bound
      ? await this.reconnect(bound.externalId)
      : await this.create(threadId, repository);
    this.open.set(threadId, sandbox);
    const hostWorkdir = join(this.rootDir, sandbox.id, 'workspace');
    const branch = threadBranch(threadId);
    const baseCommit = await hostGit(hostWorkdir, ['rev-parse', 'HEAD']);
    await this.sandboxes.touch(threadId);
    return {
      sandbox,
      tools: new ToolSandboxAdapter(sandbox, baseCommit),
      hostWorkdir,
      branch,
      baseCommit,
    };
  }

  async release(threadId: string): Promise<void> {
    const sandbox = this.open.get(threadId);
    this.open.delete(threadId);
    await sandbox?.close();
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.open.keys()].map((threadId) => this.release(threadId)));
  }

  private async reconnect(id: string): Promise<Sandbox> {
    return this.provider.connect(id);
  }

  private async create(threadId: string, repository?: RepositoryRef): Promise<Sandbox> {
    const sandbox = await this.provider.create({
      id: threadId,
      env: {
        GIT_AUTHOR_NAME: BOT_IDENTITY.name,
        GIT_AUTHOR_EMAIL: BOT_IDENTITY.email,
        GIT_COMMITTER_NAME: BOT_IDENTITY.name,
        GIT_COMMITTER_EMAIL: BOT_IDENTITY.email,
      },
    });
    try {
      await prepareWorkspace({
        workdir: join(this.rootDir, sandbox.id, 'workspace'),
        ...(repository?.cloneUrl ? { cloneUrl: repository.cloneUrl } : {}),
        ...(repository?.baseBranch ? { baseBranch: repository.baseBranch } : {}),
        branch: threadBranch(threadId),
        ...(this.provider.name === 'bwrap' && process.getuid?.() === 0
          ? { owner: SANDBOX_OWNER }
          : {}),
      });
    } catch (error) {
      await sandbox.close();
      await this.provider.delete(sandbox.id);
      throw error;
    }
    // Bound only once its setup succeeded, so a failed setup never leaves a half-made sandbox bound.
    await this.sandboxes.bind({
      id: threadId,
      threadId,
      provider: this.provider.name,
      externalId: sandbox.id,
    });
    return sandbox;
  }
}
