import type { PullRequestHeadMovedV1, EnvelopeOf } from '@caravel/contracts';
import { ThreadRepository } from '@caravel/db';
import { Inject, Injectable, Logger } from '@nestjs/common';

/**
 * A pull request thread learns its new head (GitHub `synchronize`). The latest delivery wins:
 * GitHub sends a pull request's pushes in order, and a force-push names a `before` the thread
 * never saw, so comparing against the stored head would freeze it instead.
 */
@Injectable()
export class ThreadHeadService {
  private readonly log = new Logger('ThreadHead');

  constructor(@Inject(ThreadRepository) private readonly threads: ThreadRepository) {}

  async onHeadMoved(envelope: EnvelopeOf<typeof PullRequestHeadMovedV1>): Promise<void> {
    const { threadId, headSha, pullRequest } = envelope.data;
    const known = await this.threads.setHead(threadId, headSha);
    if (!known)
      this.log.warn(`head ${headSha} of pull request #${pullRequest}: no thread ${threadId}`);
  }
}
