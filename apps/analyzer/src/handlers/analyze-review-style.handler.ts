import { AnalyzeReviewStyleV1, type EnvelopeOf } from '@caravel/contracts';
import { ConsumeEvent } from '@caravel/messaging';
import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AnalysisRequestsService } from '../services/analysis-requests.service.js';

/** `cmd.review_style.analyze`: learn a repository's review style (bootstrap or continual). */
@Controller()
export class AnalyzeReviewStyleHandler {
  constructor(
    @Inject(AnalysisRequestsService) private readonly requests: AnalysisRequestsService,
  ) {}

  @ConsumeEvent(AnalyzeReviewStyleV1, { service: 'analyzer', ordered: true })
  async handle(@Payload() envelope: EnvelopeOf<typeof AnalyzeReviewStyleV1>): Promise<void> {
    await this.requests.onRequested(envelope);
  }
}
