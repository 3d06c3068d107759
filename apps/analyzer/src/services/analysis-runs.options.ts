import { lazyChatModel, resolveModel } from '@caravel/agent';
import { githubCredentialMissing, IntegrationAdapters } from '@caravel/integrations';
import type { ScmHistoryPort } from '@caravel/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { AnalyzerKitLoader } from '../agent/analyzer-kit.loader.js';
import type { AnalyzerConfig } from '../analyzer.config.js';
import type { ReviewCommentReactions } from '../continual/finding-reactions.js';

/** Longest single model call of an analysis. */
const MODEL_TIMEOUT_MS = 180_000;

/** What analyses are made with: built from the configuration by {@link analysisRunsOptionsOf}. */
export interface AnalysisRunsOptions {
  /** A repository's review history; null when no credential can read it. */
  history(repository: { owner: string; name: string }): ScmHistoryPort | null;
  /** The reactions on the repository's review comments; null when no credential can read them. */
  reactions(repository: { owner: string; name: string }): ReviewCommentReactions | null;
  /** A fresh model for one run (a `scripted:` file is read again each time). */
  model(): Promise<BaseChatModel>;
  /** The model's reference, kept as each saved version's provenance. */
  modelName: string;
  botLogin: string;
}

export const ANALYSIS_RUNS_OPTIONS = Symbol('caravel.analysis-runs-options');

/** Why this configuration runs no analyses, or null when it does. */
export function analysesOffReason(config: AnalyzerConfig): string | null {
  if (!config.analysis.model)
    return 'no analyzer model is configured (set ANALYZER_MODEL or CARAVEL_MODEL)';
  return githubCredentialMissing(config.integrations.github, 'to read review history with');
}

/**
 * The analyses a configuration makes: GitHub through the integrations, a fresh model per run (the
 * first one loads the providers' SDKs through `kit`).
 */
export function analysisRunsOptionsOf(
  config: AnalyzerConfig,
  kit: AnalyzerKitLoader,
): AnalysisRunsOptions {
  const { analysis } = config;
  const spec = analysis.model;
  if (!spec) throw new Error(`analyses without a model: ${analysesOffReason(config)}`);
  const model = resolveModel({ team: { model: spec } });
  const integrations = new IntegrationAdapters(config.integrations);
  return {
    history: (repository) => integrations.scmHistory(repository),
    reactions: (repository) => integrations.scmHistory(repository),
    model: lazyChatModel(kit, model, analysis.credentials, {
      timeoutMs: MODEL_TIMEOUT_MS,
      fileRoot: analysis.fileRoot,
    }),
    modelName: spec,
    botLogin: analysis.botLogin,
  };
}

/** Injection token of {@link analysesOffReason}'s answer, provided when analyses are off. */
export const ANALYSES_OFF = Symbol('caravel.analyses-off');
