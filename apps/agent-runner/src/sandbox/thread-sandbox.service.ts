import { threadBranch, type RepositoryRef, type SandboxHandle } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import { BUS } from '@caravel/platform';
import {
  SandboxBrokerClient,
  ToolSandboxAdapter,
  type RpcSandbox,
  type Sandbox,
} from '@caravel/sandbox';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';

/** A thread's sandbox, ready for a run: the session, the tools' view of it, and its git state. */
export interface ThreadWorkspace {
  threadId: string;
  sandbox: Sandbox;
  tools: ToolSandboxAdapter;
  /** The sandbox broker, for the git work done outside the sandbox (commit, push). */
  broker: SandboxBrokerClient;
  branch: string;
  /** The commit the run starts from; the run's diff is taken against it. */
  baseCommit: string;
  /** Where the branch is pushed, or null when the workspace has no remote. */
  origin: string | null;
  /** The thread's repository on record: what the branch is pushed to. */
  repository?: RepositoryRef;
  /** How the broker got it: `created` for a new sandbox (set up from the repository). */
  outcome: SandboxHandle['outcome'];
}

/**
 * The runner's view of thread sandboxes: the sandbox broker owns them (reuse, reconnect, create,
 * never replace one holding work); the runner asks for its thread's over the bus and uses it
 * through the same `Sandbox` interface, whichever process or host the broker runs in.
 */
@Injectable()
export class ThreadSandboxService implements OnModuleDestroy {
  private client: Promise<SandboxBrokerClient> | undefined;

  constructor(@Inject(BUS) private readonly bus: Bus) {}

  /**
   * The thread's sandbox for a run. `onExecOutput` sees the agent's commands' output while they
   * run (streamed by the broker; the tool's observation is still the capped result). A new
   * sandbox is a clone of the repository or, with `startFrom`, of the HEAD of that thread's
   * sandbox (a retry-and-select attempt starts where its thread is); `branch` (default the
   * thread's `caravel/<id8>`) is the branch a new sandbox is set up on, started at `startRef`
   * of the repository when given (a fork's pull request head, `refs/pull/<N>/head`), else at the
   * branch as the repository has it, or at the base with `atBase` or when it has none.
   */
  async forRun(
    threadId: string,
    repository?: RepositoryRef,
    options: {
      onExecOutput?: (text: string) => void;
      startFrom?: string;
      branch?: string;
      startRef?: string;
      atBase?: boolean;
      /** Gives the wait for the broker up when aborted (the runner stops: a clone may be long). */
      signal?: AbortSignal;
    } = {},
  ): Promise<ThreadWorkspace> {
    const broker = await this.broker();
    const input = {
      threadId,
      // A run asked on a pull request works on its head branch; any other on the thread's own.
      branch: options.branch ?? threadBranch(threadId),
      ...(repository ? { repository } : {}),
      ...(options.startFrom ? { startFrom: options.startFrom } : {}),
      ...(options.startRef ? { startRef: options.startRef } : {}),
      ...(options.atBase ? { atBase: true } : {}),
    };
    const sandbox: RpcSandbox = await broker.acquire(input, options.signal);
    const { branch, baseCommit, origin, outcome } = sandbox.handle;
    return {
      threadId,
      sandbox,
      tools: new ToolSandboxAdapter(sandbox, baseCommit, options),
      broker,
      branch,
      baseCommit,
      origin,
      ...(repository ? { repository } : {}),
      outcome,
    };
  }

  /** Ends the thread's session on the broker (the sandbox and its work stay). */
  async release(threadId: string): Promise<void> {
    if (!this.client) return;
    await (await this.client).release(threadId).catch(() => false);
  }

  /** Deletes the thread's sandbox on the broker (its work is recorded elsewhere). */
  async discard(threadId: string): Promise<boolean> {
    return (await this.broker()).discard(threadId);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.client) await (await this.client).close();
  }

  private broker(): Promise<SandboxBrokerClient> {
    this.client ??= SandboxBrokerClient.open(this.bus);
    return this.client;
  }
}
