import { randomUUID } from 'node:crypto';
import { AnalyzeReviewStyleV1, reviewStyleThreadId } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '../auth/session.types.js';

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/** What a person is told when they ask for an analysis: where it runs, and its id. */
export interface AnalysisRequested {
  repository: string;
  threadId: string;
  requestId: string;
}

/** Review styles: a person (or the machine token, `caravel analyze`) asks for a bootstrap. */
@Injectable()
export class ReviewStylesService {
  constructor(@Inject(MessagePublisher) private readonly publisher: MessagePublisher) {}

  /** Publishes a bootstrap request on the repository's analyzer thread. */
  async analyze(caller: Caller, owner: string, name: string): Promise<AnalysisRequested> {
    if (!NAME.test(owner) || !NAME.test(name)) {
      throw new AppError('BAD_REQUEST', `invalid repository ${owner}/${name}: owner/name`);
    }
    const threadId = reviewStyleThreadId({ owner, repo: name });
    const requestId = randomUUID();
    await this.publisher.publish(AnalyzeReviewStyleV1, {
      threadId,
      repository: { owner, name },
      mode: 'bootstrap',
      requestedBy: caller.kind === 'person' ? caller.session.login : 'machine',
      requestId,
    });
    return { repository: `${owner}/${name}`, threadId, requestId };
  }
}
