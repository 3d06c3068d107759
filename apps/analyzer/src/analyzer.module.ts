import { CLOCK, systemClock, type Clock } from '@caravel/config';
import { ReviewStyleRepository } from '@caravel/db';
import { repositoryProvider } from '@caravel/platform';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { ANALYZER_CONFIG, type AnalyzerConfig } from './analyzer.config.js';
import { NightlyAnalysesService } from './continual/nightly-analyses.service.js';
import { AnalyzeReviewStyleHandler } from './handlers/analyze-review-style.handler.js';
import { AnalysisRequestsService } from './services/analysis-requests.service.js';
import {
  ANALYSES_OFF,
  ANALYSIS_RUNS_OPTIONS,
  analysesOffReason,
  analysisRunsOptionsOf,
} from './services/analysis-runs.options.js';
import { AnalyzerKitLoader } from './agent/analyzer-kit.loader.js';
import { ReviewStyleService } from './services/review-style.service.js';

/** What runs analyses, or, when the configuration cannot, why not (said at start and per request). */
function analysisProviders(config: AnalyzerConfig): Provider[] {
  const off = analysesOffReason(config);
  if (off !== null) return [{ provide: ANALYSES_OFF, useValue: off }];
  return [
    AnalyzerKitLoader,
    {
      provide: ANALYSIS_RUNS_OPTIONS,
      inject: [AnalyzerKitLoader],
      useFactory: (kit: AnalyzerKitLoader) => analysisRunsOptionsOf(config, kit),
    },
    ReviewStyleService,
  ];
}

/**
 * Review-style learning (docs/analyzer.md): `AnalyzeReviewStyleV1` requests run a bootstrap
 * (a crawl of merged pull requests' review comments) or a continual run (findings' outcomes);
 * the nightly schedule asks for the continual runs of bootstrapped repositories.
 */
@Module({})
export class AnalyzerModule {
  static register(config: AnalyzerConfig, clock: Clock = systemClock): DynamicModule {
    return {
      module: AnalyzerModule,
      controllers: [AnalyzeReviewStyleHandler],
      providers: [
        { provide: ANALYZER_CONFIG, useValue: config },
        { provide: CLOCK, useValue: clock },
        repositoryProvider(ReviewStyleRepository),
        AnalysisRequestsService,
        NightlyAnalysesService,
        ...analysisProviders(config),
      ],
    };
  }
}
