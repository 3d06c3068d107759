import {
  distributedServiceSchema,
  documented,
  serviceConfigOf,
  type ServiceConfig,
} from '@caravel/config';
import {
  caravelGithubLoginSchema,
  checkModelKeys,
  githubAppSettingsSchema,
  githubTokenSettingsSchema,
  integrationsConfigOf,
  modelSettingsSchema,
  serviceModelConfigOf,
  type IntegrationsConfig,
  type ServiceModelConfig,
} from '@caravel/integrations';
import { z } from 'zod';

/**
 * The analyzer's own environment keys, beyond the common service keys; the same keys configure
 * the embedded host. Its model is `ANALYZER_MODEL`, else the team default (`CARAVEL_MODEL`); it
 * reads GitHub as the App (`GITHUB_TOKEN` in development), as the reviewer does.
 */
export const analyzerEnvSchema = z.object({
  ANALYZER_MODEL: documented(z.string().min(1).optional(), {
    description:
      "The review-style analyzer's model (as CARAVEL_MODEL: anthropic:…, openai:…, scripted:<file>); unset: CARAVEL_MODEL; neither: no analyses",
  }),
  ANALYZER_GITHUB_LOGIN: documented(caravelGithubLoginSchema(), {
    description: "Caravel's own GitHub login: its review comments are not learned from",
  }),
  ANALYZER_NIGHTLY_CHECK_MS: documented(z.coerce.number().int().positive().default(60_000), {
    description:
      'How often the analyzer looks for repositories whose nightly slot has come (the slot itself is fixed per repository)',
  }),
  ...modelSettingsSchema.shape,
  ...githubAppSettingsSchema.shape,
  ...githubTokenSettingsSchema.shape,
});

type AnalyzerEnv = z.output<typeof analyzerEnvSchema>;

/** What the analyzer learns review styles with, typed. */
export interface AnalyzerConfig {
  /**
   * The analyzer's model (`ANALYZER_MODEL`, else the team default; unset: no analyses) and what
   * it learns from.
   */
  analysis: ServiceModelConfig<'ANALYZER_MODEL'> & {
    /** Caravel's GitHub login: its own comments are not learned from. */
    botLogin: string;
    /** How often due nightly runs are looked for, in milliseconds. */
    nightlyCheckMs: number;
  };
  /** GitHub, where the history is read. */
  integrations: IntegrationsConfig;
}

/** Maps the analyzer's parsed keys to its typed configuration. */
export function analyzerConfigOf(env: AnalyzerEnv): AnalyzerConfig {
  return {
    analysis: {
      ...serviceModelConfigOf('ANALYZER_MODEL', env),
      botLogin: env.ANALYZER_GITHUB_LOGIN,
      nightlyCheckMs: env.ANALYZER_NIGHTLY_CHECK_MS,
    },
    integrations: integrationsConfigOf(env),
  };
}

/** The distributed analyzer: the common service keys and its own. */
export const analyzerConfigSchema = distributedServiceSchema(3005)
  .extend(analyzerEnvSchema.shape)
  .superRefine(checkModelKeys(['ANALYZER_MODEL', 'CARAVEL_MODEL']))
  .transform((env): AnalyzerConfig & { service: ServiceConfig } => ({
    service: serviceConfigOf(env),
    ...analyzerConfigOf(env),
  }));

/** Injection token of the {@link AnalyzerConfig}. */
export const ANALYZER_CONFIG = Symbol('caravel.analyzer-config');
