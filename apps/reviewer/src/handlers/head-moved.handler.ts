import { PullRequestHeadMovedV1, type EnvelopeOf } from '@caravel/contracts';
import { CaravelContext, ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { ReviewRequestsService } from '../services/review-requests.service.js';

/** `trigger.pull_request.head_moved`: a push; a reviewed pull request is reviewed again. */
@Controller()
export class HeadMovedHandler {
  constructor(@Inject(ReviewRequestsService) private readonly requests: ReviewRequestsService) {}

  @ConsumeEvent(PullRequestHeadMovedV1, { service: 'reviewer', ordered: true })
  async handle(
    @Payload() envelope: EnvelopeOf<typeof PullRequestHeadMovedV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    await this.requests.onHeadMoved(envelope, context.stopping);
  }
}
