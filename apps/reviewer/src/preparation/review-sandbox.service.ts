import { threadBranch, type RepositoryRef } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import { BUS } from '@caravel/platform';
import { SandboxBrokerClient, type RpcSandbox } from '@caravel/sandbox';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { sandboxGit } from './sandbox-git.js';
import type { ReviewGit } from './review-git.js';

/** A reviewer thread's sandbox and git in it. */
export interface ReviewCheckout {
  sandbox: RpcSandbox;
  git: ReviewGit;
}

/**
 * The reviewer's sandboxes, from the sandbox broker as the agent runner gets its own, with one
 * difference: a reviewer thread's sandbox holds nothing the review does not derive again (the
 * checkout of the head), so it asks as a `reviewer` with `allowReplacement`, and the broker
 * replaces one it cannot reach instead of failing the review.
 */
@Injectable()
export class ReviewSandboxService implements OnModuleDestroy {
  private client: Promise<SandboxBrokerClient> | undefined;

  constructor(@Inject(BUS) private readonly bus: Bus) {}

  /** The thread's checkout; with `stopping`, given up at once when it aborts (a clone may be slow). */
  async checkout(
    threadId: string,
    repository: RepositoryRef,
    stopping?: AbortSignal,
  ): Promise<ReviewCheckout> {
    const sandbox = await (
      await this.broker()
    ).acquire(
      {
        threadId,
        branch: threadBranch(threadId),
        repository,
        purpose: 'reviewer',
        allowReplacement: true,
      },
      stopping,
    );
    return { sandbox, git: sandboxGit(sandbox) };
  }

  /** Ends the thread's session on the broker (the checkout stays for the next review). */
  async release(threadId: string): Promise<void> {
    if (!this.client) return;
    await (await this.client).release(threadId).catch(() => false);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.client) await (await this.client).close();
  }

  private broker(): Promise<SandboxBrokerClient> {
    this.client ??= SandboxBrokerClient.open(this.bus);
    return this.client;
  }
}
