import {
  commaList,
  distributedServiceSchema,
  documented,
  flag,
  serviceConfigOf,
} from '@caravel/config';
import {
  accessSettingsSchema,
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

const GITHUB_NAME = '[A-Za-z0-9_.-]+';
const REPOSITORY_ENTRY = new RegExp(`^${GITHUB_NAME}/(${GITHUB_NAME}|\\*)$`);

/** A comma list of `owner/name` or `owner/*`, lower-cased. */
const repositoryList = () =>
  commaList({ pattern: REPOSITORY_ENTRY, shape: 'owner/name or owner/*', lowerCase: true });

/**
 * The reviewer's own environment keys, beyond the common service keys; the same keys configure
 * the embedded host. Its model is `REVIEWER_MODEL`, else the team default (`CARAVEL_MODEL`), with
 * the providers' keys the agent runner reads; reviews are published as the GitHub App
 * (`GITHUB_TOKEN` in development). The sandbox broker is reached over the bus: nothing to set.
 */
export const reviewerEnvSchema = z.object({
  REVIEWER_MODEL: documented(z.string().min(1).optional(), {
    description:
      "The reviewer's model (as CARAVEL_MODEL: anthropic:…, openai:…, scripted:<file>); unset: CARAVEL_MODEL; neither: review requests only keep ledgers",
  }),
  REVIEWER_GITHUB_LOGIN: documented(caravelGithubLoginSchema(), {
    description:
      "The GitHub login reviews are published as (the App's <slug>[bot]; with GITHUB_TOKEN, the token's owner): its own pull requests get no verdict",
  }),
  REVIEWER_REREVIEW_ON_PUSH: documented(flag(true), {
    description: 'Review a reviewed pull request again when it is pushed to (the new range only)',
  }),
  REVIEWER_APPROVE_CLEAN_REPOS: documented(repositoryList(), {
    description:
      "Comma list of owner/name (or owner/*) where a clean review (no finding open, whoever raised it) approves the pull request of one of the repository's own people (GitHub's OWNER, MEMBER, COLLABORATOR); elsewhere it is a comment",
    example: 'acme/widgets,acme-labs/*',
  }),
  ...modelSettingsSchema.shape,
  ...githubAppSettingsSchema.shape,
  ...githubTokenSettingsSchema.shape,
  PUBLIC_REPO_ORG_GATE: accessSettingsSchema.shape.PUBLIC_REPO_ORG_GATE,
  PUBLIC_REPO_GATE_CACHE_SECONDS: accessSettingsSchema.shape.PUBLIC_REPO_GATE_CACHE_SECONDS,
});

type ReviewerEnv = z.output<typeof reviewerEnvSchema>;

/** What review runs are made with, typed: the model, who Caravel is on GitHub, and GitHub. */
export interface ReviewerConfig {
  /**
   * The reviewer's model (`REVIEWER_MODEL`, else the team default; unset: no reviews) and how its
   * reviews are published.
   */
  review: ServiceModelConfig<'REVIEWER_MODEL'> & {
    /** Caravel's GitHub login: its own pull requests get no verdict, its comments are its own. */
    botLogin: string;
    /** A push to a reviewed pull request is reviewed again. */
    reReviewOnPush: boolean;
    /** `owner/name` or `owner/*` (lower-cased) whose clean reviews approve; empty: none. */
    approveCleanRepos: string[];
  };
  /** Who may have an auto-review: on public repositories, the owner's members (and bots). */
  access: {
    publicRepoOrgGate: boolean;
    /** How long the gate keeps GitHub's membership answers (yes and no); 0: not kept. */
    publicRepoGateCacheMs: number;
  };
  /** GitHub, where reviews are published and the gate asks (the other systems unconfigured). */
  integrations: IntegrationsConfig;
}

/** Maps the reviewer's parsed keys to its typed configuration. */
export function reviewerConfigOf(env: ReviewerEnv): ReviewerConfig {
  return {
    review: {
      ...serviceModelConfigOf('REVIEWER_MODEL', env),
      botLogin: env.REVIEWER_GITHUB_LOGIN,
      reReviewOnPush: env.REVIEWER_REREVIEW_ON_PUSH,
      approveCleanRepos: env.REVIEWER_APPROVE_CLEAN_REPOS,
    },
    access: {
      publicRepoOrgGate: env.PUBLIC_REPO_ORG_GATE,
      publicRepoGateCacheMs: env.PUBLIC_REPO_GATE_CACHE_SECONDS * 1000,
    },
    integrations: integrationsConfigOf(env),
  };
}

/**
 * The distributed reviewer: the common service keys and its own, typed at parse time. A model
 * that cannot work here (an unknown name, its provider's key unset, an unreadable script) is an
 * invalid `REVIEWER_MODEL` (`CARAVEL_MODEL`), reported at start with the other invalid keys.
 */
export const reviewerConfigSchema = distributedServiceSchema(3004)
  .extend(reviewerEnvSchema.shape)
  .superRefine(checkModelKeys(['REVIEWER_MODEL', 'CARAVEL_MODEL']))
  .transform((env) => ({ service: serviceConfigOf(env), ...reviewerConfigOf(env) }));

/** Injection token of the {@link ReviewerConfig}. */
export const REVIEWER_CONFIG = Symbol('caravel.reviewer-config');
