import type { DataOf, AnalyzeReviewStyleV1 } from '@caravel/contracts';
import { ReviewStyleRepository, type ReviewStyleRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AnalyzerKitLoader } from '../agent/analyzer-kit.loader.js';
import {
  reviewStyleRunContext,
  type ReviewStyleRunContext,
} from '../agent/review-style.context.js';
import { decideContinual } from '../continual/continual-decision.js';
import { withReactions, type WeighedOutcome } from '../continual/finding-reactions.js';
import { ANALYSIS_RUNS_OPTIONS, type AnalysisRunsOptions } from './analysis-runs.options.js';

/** What one analysis did. */
export type AnalysisOutcome =
  | { saved: ReviewStyleRow }
  | {
      saved: null;
      reason: 'no_bootstrap' | 'no_outcomes' | 'model_kept_style' | 'already_answered';
    };

type AnalyzeRequest = DataOf<typeof AnalyzeReviewStyleV1>;

/** Caravel's published findings whose reactions a continual run reads, the newest first. */
export const REACTED_FINDINGS_LIMIT = 100;

/**
 * Runs analyses: a bootstrap crawls the repository's merged pull requests through the SCM and
 * must save a style; a continual run asks the model only when findings' outcomes arrived since
 * the latest version, and saves only if the model judges they change the style.
 */
@Injectable()
export class ReviewStyleService {
  private readonly logger = new Logger('ReviewStyles');

  constructor(
    @Inject(ReviewStyleRepository) private readonly styles: ReviewStyleRepository,
    @Inject(ANALYSIS_RUNS_OPTIONS) private readonly options: AnalysisRunsOptions,
    @Inject(AnalyzerKitLoader) private readonly kit: AnalyzerKitLoader,
  ) {}

  /**
   * Runs one request. `requestedAt` is when it was asked: a version saved after it already answers
   * it (a redelivery after the save, its acknowledgement lost), so nothing runs twice.
   */
  async analyze(request: AnalyzeRequest, requestedAt?: Date): Promise<AnalysisOutcome> {
    const repository = `${request.repository.owner}/${request.repository.name}`.toLowerCase();
    const current = await this.styles.latest(repository);
    const outcome: AnalysisOutcome =
      current && requestedAt && current.createdAt > requestedAt
        ? { saved: null, reason: 'already_answered' }
        : request.mode === 'bootstrap'
          ? await this.bootstrap(request, repository, current)
          : await this.continual(request, repository, current);
    this.logger.log(
      `${repository} ${request.mode} (asked by ${request.requestedBy}): ${outcome.saved ? `saved version ${outcome.saved.version}` : `nothing saved (${outcome.reason})`}`,
    );
    return outcome;
  }

  private async bootstrap(
    request: AnalyzeRequest,
    repository: string,
    current: ReviewStyleRow | null,
  ): Promise<AnalysisOutcome> {
    const history = this.options.history(request.repository);
    if (!history) {
      throw new AppError(
        'PRECONDITION_FAILED',
        `no GitHub credential can read ${repository}'s history: install the GitHub App on it (or set GITHUB_TOKEN in development)`,
        { retryable: false },
      );
    }
    const context = this.context(request, repository, current, { history, outcomes: [] });
    await this.runAgent(context);
    if (!context.saved) {
      throw new AppError(
        'PRECONDITION_FAILED',
        `the bootstrap of ${repository}'s review style ended without save_review_style_prompt: nothing was saved`,
        { retryable: false },
      );
    }
    return { saved: context.saved };
  }

  private async continual(
    request: AnalyzeRequest,
    repository: string,
    current: ReviewStyleRow | null,
  ): Promise<AnalysisOutcome> {
    const outcomes = current ? await this.outcomesSince(request, repository, current) : [];
    const decision = decideContinual(current, outcomes);
    if (!decision.run) return { saved: null, reason: decision.reason };
    const context = this.context(request, repository, decision.current, {
      history: null,
      outcomes: decision.outcomes,
    });
    await this.runAgent(context);
    return context.saved ? { saved: context.saved } : { saved: null, reason: 'model_kept_style' };
  }

  /** The ledger's outcomes since `current` was saved, and people's 👍/👎 since then. */
  private async outcomesSince(
    request: AnalyzeRequest,
    repository: string,
    current: ReviewStyleRow,
  ): Promise<WeighedOutcome[]> {
    const ledger = await this.styles.findingOutcomesSince(repository, current.createdAt);
    const reader = this.options.reactions(request.repository);
    if (!reader) return ledger;
    const surfaced = await this.styles.surfacedFindings(repository, REACTED_FINDINGS_LIMIT);
    return withReactions(ledger, surfaced, {
      reader,
      since: current.createdAt,
      botLogin: this.options.botLogin,
      warn: (message) => this.logger.warn(`${repository}: ${message}`),
    });
  }

  private context(
    request: AnalyzeRequest,
    repository: string,
    current: ReviewStyleRow | null,
    sources: Pick<ReviewStyleRunContext, 'history' | 'outcomes'>,
  ): ReviewStyleRunContext {
    return reviewStyleRunContext({
      repository,
      threadId: request.threadId,
      mode: request.mode,
      modelName: this.options.modelName,
      styles: this.styles,
      current,
      botLogin: this.options.botLogin,
      ...sources,
    });
  }

  private async runAgent(context: ReviewStyleRunContext): Promise<void> {
    const { analyzerBrief, buildAnalyzerAgent } = await this.kit.get();
    const agent = buildAnalyzerAgent(await this.options.model(), context);
    await agent.run(analyzerBrief(context));
  }
}
