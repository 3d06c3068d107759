import { loadConfig } from '@caravel/config';
import { describe, expect, it } from '@jest/globals';
import { agentRunnerConfigSchema } from './agent-runner.config.js';

const BASE = {
  NATS_URL: 'nats://127.0.0.1:4222',
  DATABASE_URL: 'postgres://postgres@127.0.0.1/caravel',
};

const load = (env: Record<string, string>) =>
  loadConfig('agent-runner', agentRunnerConfigSchema, { ...BASE, ...env });

describe('the distributed agent runner refuses a team model that cannot work, at start', () => {
  it('names the missing provider key of CARAVEL_MODEL', () => {
    expect(() => load({ CARAVEL_MODEL: 'anthropic:claude-sonnet-4-5' })).toThrow(
      /CARAVEL_MODEL: .*needs ANTHROPIC_API_KEY/,
    );
    expect(() => load({ CARAVEL_MODEL: 'openai:gpt-5' })).toThrow(/needs OPENAI_API_KEY/);
  });

  it('checks CARAVEL_FALLBACK_MODEL the same way, and types it as the team fallback', () => {
    expect(() =>
      load({
        CARAVEL_MODEL: 'openai:gpt-5',
        OPENAI_API_KEY: 'k',
        CARAVEL_FALLBACK_MODEL: 'anthropic:claude-sonnet-4-5',
      }),
    ).toThrow(/CARAVEL_FALLBACK_MODEL: .*needs ANTHROPIC_API_KEY/);
    const config = load({
      CARAVEL_MODEL: 'openai:gpt-5',
      OPENAI_API_KEY: 'k',
      CARAVEL_FALLBACK_MODEL: 'anthropic:claude-sonnet-4-5',
      ANTHROPIC_API_KEY: 'sk-test',
    });
    expect(config.models.teamFallback).toBe('anthropic:claude-sonnet-4-5');
  });

  it('refuses an unknown model and an unreadable script', () => {
    expect(() => load({ CARAVEL_MODEL: 'anthropic:no-such-model' })).toThrow(/CARAVEL_MODEL/);
    expect(() => load({ CARAVEL_MODEL: 'scripted:/nonexistent/model.yaml' })).toThrow(
      /CARAVEL_MODEL/,
    );
  });

  it('starts with the key set, or with no team model (each thread names its own)', () => {
    expect(
      load({ CARAVEL_MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'sk-test' }),
    ).toMatchObject({
      models: {
        teamDefault: 'anthropic:claude-sonnet-4-5',
        credentials: { anthropicApiKey: 'sk-test' },
      },
    });
    expect(load({}).models.teamDefault).toBeUndefined();
  });
});

describe("the agent runner's typed configuration", () => {
  it('maps the environment to the nested shape', () => {
    const config = load({
      RUN_BUDGET_USD: '1.5',
      RUN_EXCLUDED_TOOLS: ' web_search, http_request ,',
      RUN_ALWAYS_CREATE_PRS: 'true',
      RUN_INITIAL_MODE: 'plan',
      OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:8089/v1',
      WEB_ALLOWED_HOSTS: 'intranet.acme.test',
      TAVILY_API_KEY: 'tvly-1',
      CARAVEL_TOKEN_KEYS: 'k1:AAAA',
    });
    expect(config.run).toMatchObject({
      budgetUsd: 1.5,
      excludedTools: ['web_search', 'http_request'],
      alwaysCreatePrs: true,
      initialMode: 'plan',
    });
    expect(config.models.credentials).toEqual({
      openaiCompatibleBaseUrl: 'http://127.0.0.1:8089/v1',
    });
    expect(config.web.tavily).toEqual({ apiKey: 'tvly-1', apiUrl: 'https://api.tavily.com' });
    expect(config.tokenKeys).toBe('k1:AAAA');
    expect(config.service.port).toBe(3003);
  });

  it('applies the defaults', () => {
    const config = load({});
    expect(config.run).toMatchObject({
      maxModelCalls: 60,
      budgetUsd: 3,
      maxWallTimeMs: 7_200_000,
      interruptPollMs: 15_000,
      excludedTools: [],
      alwaysCreatePrs: false,
      initialMode: 'edit',
    });
    expect(config.models).toMatchObject({ fileRoot: '.', timeoutMs: 180_000, retries: 3 });
  });

  it('names the environment key of a bad value', () => {
    expect(() => load({ RUN_MAX_MODEL_CALLS: '0', RUN_INITIAL_MODE: 'review' })).toThrow(
      /RUN_MAX_MODEL_CALLS: .*\n\s+RUN_INITIAL_MODE: /s,
    );
  });
});
