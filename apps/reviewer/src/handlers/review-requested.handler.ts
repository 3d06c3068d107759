import { ReviewRequestedV1, type EnvelopeOf } from '@caravel/contracts';
import { CaravelContext, ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { ReviewRequestGate } from '../services/review-request-gate.service.js';
import { ReviewRequestsService } from '../services/review-requests.service.js';

/** `trigger.review.requested`: a pull request asks for Caravel's review (its author gated first). */
@Controller()
export class ReviewRequestedHandler {
  constructor(
    @Inject(ReviewRequestGate) private readonly gate: ReviewRequestGate,
    @Inject(ReviewRequestsService) private readonly requests: ReviewRequestsService,
  ) {}

  @ConsumeEvent(ReviewRequestedV1, { service: 'reviewer', ordered: true })
  async handle(
    @Payload() envelope: EnvelopeOf<typeof ReviewRequestedV1>,
    @Ctx() context: CaravelContext,
  ): Promise<void> {
    if (!(await this.gate.admits(envelope))) return;
    await this.requests.onRequested(envelope, context.stopping);
  }
}
