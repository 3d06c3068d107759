import type { EnvelopeOf, ReviewRequestedV1 } from '@caravel/contracts';
import { IntegrationAdapters, publicRepoGateOf, type PublicRepoGate } from '@caravel/integrations';
import { triggersRefused } from '@caravel/metrics';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { REVIEWER_CONFIG, type ReviewerConfig } from '../reviewer.config.js';

/**
 * The public-repository gate (`PUBLIC_REPO_ORG_GATE`) on an auto-review request, decided here as
 * the GitHub App on the author facts the ingress took from the signed payload: a stranger's pull
 * request on a public repository opens no ledger and is not reviewed. A refusal is logged and
 * counted (`caravel_triggers_refused_total`), never answered (no public word to a stranger); a
 * membership question GitHub did not answer is thrown, so the request is redelivered. Answers are
 * kept `PUBLIC_REPO_GATE_CACHE_SECONDS`: a stranger's pushes cost one question per period.
 */
@Injectable()
export class ReviewRequestGate {
  private readonly log = new Logger('ReviewRequestGate');
  private readonly gate: PublicRepoGate;

  constructor(@Inject(REVIEWER_CONFIG) config: ReviewerConfig) {
    const membership = new IntegrationAdapters(config.integrations).orgMembership();
    this.gate = publicRepoGateOf(config.access, membership);
  }

  /** True when the request may go on; false when its author was refused. */
  async admits(request: EnvelopeOf<typeof ReviewRequestedV1>): Promise<boolean> {
    const actor = request.data.githubActor;
    const reason = actor ? await this.gate.refusal(actor) : null;
    if (!reason) return true;
    this.log.warn(
      `review request ${request.id} (thread ${request.data.threadId}) refused: ${reason}`,
    );
    triggersRefused.inc({ source: 'github', check: 'public_repo_gate' });
    return false;
  }
}
