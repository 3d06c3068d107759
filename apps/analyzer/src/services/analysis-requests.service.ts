import type { AnalyzeReviewStyleV1, EnvelopeOf } from '@caravel/contracts';
import { Inject, Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { ANALYSES_OFF } from './analysis-runs.options.js';
import { ReviewStyleService, type AnalysisOutcome } from './review-style.service.js';

/**
 * Analysis requests: run when the analyzer is configured to; otherwise said once at start (an
 * info line) and per request (a warning naming the repository and the reason), never dropped
 * silently.
 */
@Injectable()
export class AnalysisRequestsService implements OnModuleInit {
  private readonly logger = new Logger('AnalysisRequests');

  constructor(
    @Optional() @Inject(ReviewStyleService) private readonly runs: ReviewStyleService | null = null,
    @Optional() @Inject(ANALYSES_OFF) private readonly off: string | null = null,
  ) {}

  onModuleInit(): void {
    if (this.off) this.logger.log(`review-style analyses are off: ${this.off}`);
  }

  async onRequested(
    envelope: EnvelopeOf<typeof AnalyzeReviewStyleV1>,
  ): Promise<AnalysisOutcome | null> {
    const { repository, mode } = envelope.data;
    if (!this.runs) {
      this.logger.warn(
        `${repository.owner}/${repository.name}: ${mode} analysis not run: ${this.off ?? 'analyses are off'}`,
      );
      return null;
    }
    return this.runs.analyze(envelope.data, new Date(envelope.occurredAt));
  }
}
