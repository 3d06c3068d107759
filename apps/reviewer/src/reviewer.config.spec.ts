import { loadConfig } from '@caravel/config';
import type { AppError } from '@caravel/errors';
import { describe, expect, it } from '@jest/globals';
import { reviewerConfigSchema } from './reviewer.config.js';
import { ReviewerKitLoader } from './agent/reviewer-kit.loader.js';
import { reviewRunsOptionsOf, reviewsOffReason } from './services/review-runs.options.js';

const COMMON = { NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'pglite:memory' };

/** What loading `env` throws (the test fails when it loads). */
function refusal(env: Record<string, string>): AppError {
  try {
    loadConfig('reviewer', reviewerConfigSchema, { ...COMMON, ...env });
  } catch (error) {
    return error as AppError;
  }
  throw new Error('the configuration loaded');
}

describe('reviewer configuration', () => {
  it('maps the environment to the typed configuration: the model, GitHub, who Caravel is', () => {
    const config = loadConfig('reviewer', reviewerConfigSchema, {
      ...COMMON,
      CARAVEL_MODEL: 'openai:gpt-5',
      REVIEWER_MODEL: 'openai-compatible:qwen2.5-coder',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1',
      REVIEWER_GITHUB_LOGIN: 'acme-caravel[bot]',
      REVIEWER_REREVIEW_ON_PUSH: 'false',
      REVIEWER_APPROVE_CLEAN_REPOS: ' Acme/Widgets, acme-labs/* ,',
      GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
      GITHUB_TOKEN: 'ghp_dev',
    });
    expect(config.service).toMatchObject({ port: 3004, natsUrl: COMMON.NATS_URL });
    expect(config.review).toEqual({
      model: 'openai-compatible:qwen2.5-coder',
      modelKey: 'REVIEWER_MODEL',
      credentials: {
        openaiApiKey: 'sk-test',
        openaiCompatibleBaseUrl: 'http://127.0.0.1:11434/v1',
      },
      fileRoot: '.',
      botLogin: 'acme-caravel[bot]',
      reReviewOnPush: false,
      approveCleanRepos: ['acme/widgets', 'acme-labs/*'],
    });
    // Clean reviews approve in the listed repositories only, per repository.
    const approves = reviewRunsOptionsOf(config, new ReviewerKitLoader()).approveCleanReviews;
    expect(
      [
        { owner: 'acme', name: 'widgets' },
        { owner: 'ACME', name: 'WIDGETS' },
        { owner: 'acme-labs', name: 'anything' },
        { owner: 'acme', name: 'gadgets' },
        { owner: 'other', name: 'widgets' },
      ].map((repository) => approves?.(repository)),
    ).toEqual([true, true, true, false, false]);
    expect(config.integrations.github).toEqual({
      apiUrl: 'https://ghe.example.com/api/v3',
      webUrl: 'https://github.com',
      developmentToken: 'ghp_dev',
    });
    expect(reviewsOffReason(config)).toBeNull();
  });

  it('defaults to the team model, caravel[bot] and re-reviews on push; reviews off without a model', () => {
    const teamModel = loadConfig('reviewer', reviewerConfigSchema, {
      ...COMMON,
      CARAVEL_MODEL: 'scripted:libs/agent/src/models/fixtures/good-script.yaml',
      CARAVEL_FILE_ROOT: new URL('../../../', import.meta.url).pathname,
    });
    expect(teamModel.review).toMatchObject({
      modelKey: 'CARAVEL_MODEL',
      botLogin: 'caravel[bot]',
      reReviewOnPush: true,
      approveCleanRepos: [],
    });
    expect(reviewsOffReason(teamModel)).toMatch(/no GitHub credential .*GITHUB_TOKEN/);

    const none = loadConfig('reviewer', reviewerConfigSchema, COMMON);
    expect(none.review.model).toBeUndefined();
    expect(reviewsOffReason(none)).toBe(
      'no reviewer model is configured (set REVIEWER_MODEL or CARAVEL_MODEL)',
    );
  });

  it('refuses bad values with CONFIG_INVALID naming each environment key', () => {
    const error = refusal({
      REVIEWER_MODEL: 'anthropic:claude-sonnet-4-5',
      REVIEWER_GITHUB_LOGIN: '@caravel',
      REVIEWER_REREVIEW_ON_PUSH: 'sometimes',
      REVIEWER_APPROVE_CLEAN_REPOS: 'acme/widgets,widgets',
    });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.details['problems']).toEqual([
      expect.stringMatching(/^REVIEWER_GITHUB_LOGIN: a GitHub login/),
      expect.stringMatching(/^REVIEWER_REREVIEW_ON_PUSH: /),
      'REVIEWER_APPROVE_CLEAN_REPOS: "widgets" is not owner/name or owner/* (got "acme/widgets,widgets")',
    ]);
    expect(refusal({ REVIEWER_MODEL: 'anthropic:claude-sonnet-4-5' }).details['problems']).toEqual([
      expect.stringMatching(/^REVIEWER_MODEL: .*needs ANTHROPIC_API_KEY/),
    ]);
  });
});
