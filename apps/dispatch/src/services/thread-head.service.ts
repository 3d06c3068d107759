import type { PullRequestHeadMovedV1, EnvelopeOf } from '@caravel/contracts';
import { PullRequestHeadRepository, ThreadRepository } from '@caravel/db';
import { Inject, Injectable, Logger } from '@nestjs/common';

/**
 * A pull request thread learns its new head (GitHub `synchronize`). The latest delivery wins:
 * GitHub sends a pull request's pushes in order, and a force-push names a `before` the thread
 * never saw, so comparing against the stored head would freeze it instead. The push is also kept
 * per pull request (`pull_request_heads`), so a check report on an older head handled after it is
 * not taken for the pull request's state.
 */
@Injectable()
export class ThreadHeadService {
  private readonly log = new Logger('ThreadHead');

  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(PullRequestHeadRepository) private readonly heads: PullRequestHeadRepository,
  ) {}

  async onHeadMoved(envelope: EnvelopeOf<typeof PullRequestHeadMovedV1>): Promise<void> {
    const { threadId, headSha, pullRequest, repository } = envelope.data;
    // The pull request's latest push, for check reports handled after it (the CI watch).
    await this.heads.record(
      { owner: repository.owner, repo: repository.name, number: pullRequest },
      { headSha, at: new Date(envelope.occurredAt) },
    );
    const known = await this.threads.setHead(threadId, headSha);
    if (!known)
      this.log.warn(`head ${headSha} of pull request #${pullRequest}: no thread ${threadId}`);
  }
}
