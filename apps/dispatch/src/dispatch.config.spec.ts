import { loadConfig } from '@caravel/config';
import type { AppError } from '@caravel/errors';
import { dispatchConfigSchema } from './dispatch.config.js';

const COMMON = { NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'pglite:memory' };

/** What loading `env` throws (the test fails when it loads). */
function refusal(env: Record<string, string>): AppError {
  try {
    loadConfig('dispatch', dispatchConfigSchema, env);
  } catch (error) {
    return error as AppError;
  }
  throw new Error('the configuration loaded');
}

describe('dispatch configuration', () => {
  it('maps the environment to the nested, typed configuration', () => {
    const config = loadConfig('dispatch', dispatchConfigSchema, {
      ...COMMON,
      DISPATCH_MAX_ACTIVE_RUNS: '3',
      DISPATCH_SWEEP_INTERVAL_MS: '5000',
      SLACK_BOT_TOKEN: 'xoxb-1',
      GITHUB_TOKEN: 'ghp_dev',
      PORT: '4002',
    });
    expect(config.dispatch).toEqual({
      maxActiveRuns: 3,
      maxActiveRunsPerRepository: 4,
      sweepIntervalMs: 5000,
      pendingLimitMs: 30 * 60_000,
      heartbeatLimitMs: 10 * 60_000,
    });
    expect(config.service).toMatchObject({ port: 4002, natsUrl: COMMON.NATS_URL });
    expect(config.integrations.slack).toEqual({ botToken: 'xoxb-1' });
    expect(config.integrations.github).toMatchObject({
      apiUrl: 'https://api.github.com',
      developmentToken: 'ghp_dev',
    });
    expect(config.access).toEqual({
      publicRepoOrgGate: true,
      publicRepoGateCacheMs: 300_000,
      repositoryAccessCheck: 'github',
    });
  });

  it('reads who may have Caravel act: the public-repository gate and the repository check', () => {
    const config = loadConfig('dispatch', dispatchConfigSchema, {
      ...COMMON,
      PUBLIC_REPO_ORG_GATE: 'false',
      PUBLIC_REPO_GATE_CACHE_SECONDS: '0',
      REPOSITORY_ACCESS_CHECK: 'off',
    });
    expect(config.access).toEqual({
      publicRepoOrgGate: false,
      publicRepoGateCacheMs: 0,
      repositoryAccessCheck: 'off',
    });
  });

  it('refuses bad values with CONFIG_INVALID naming each environment key', () => {
    const error = refusal({
      ...COMMON,
      DISPATCH_MAX_ACTIVE_RUNS: '0',
      DISPATCH_HEARTBEAT_LIMIT_MS: 'soon',
    });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.details['problems']).toEqual([
      expect.stringMatching(/^DISPATCH_MAX_ACTIVE_RUNS: /),
      'DISPATCH_HEARTBEAT_LIMIT_MS: Invalid input: expected number, received NaN (got "soon")',
    ]);
  });
});
