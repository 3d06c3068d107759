import { loadConfig } from '@caravel/config';
import type { AppError } from '@caravel/errors';
import { describe, expect, it } from '@jest/globals';
import { dashboardConfigSchema } from './dashboard.config.js';

const COMMON = { NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'pglite:memory' };

/** The problems loading `env` reports (the test fails when it loads). */
function problems(env: Record<string, string>): unknown {
  try {
    loadConfig('dashboard', dashboardConfigSchema, { ...COMMON, ...env });
  } catch (error) {
    expect((error as AppError).code).toBe('CONFIG_INVALID');
    return (error as AppError).details['problems'];
  }
  throw new Error('the configuration loaded');
}

describe('dashboard configuration', () => {
  it('maps the environment to the typed configuration', () => {
    const config = loadConfig('dashboard', dashboardConfigSchema, {
      ...COMMON,
      DASHBOARD_TOKEN: 'a-machine-token-of-32-characters',
      GITHUB_OAUTH_CLIENT_ID: 'Iv1.client',
      GITHUB_OAUTH_CLIENT_SECRET: 'secret',
      GITHUB_OAUTH_URL: 'https://ghe.example.com',
      DASHBOARD_PUBLIC_URL: 'https://caravel.example.com/some/path',
      DASHBOARD_ALLOWED_ORIGINS: 'https://ops.example.com, https://b.example.com:8443/x',
      DASHBOARD_ALLOWED_ORGS: 'acme, ,acme-labs',
      DASHBOARD_ADMINS: 'octocat',
      DASHBOARD_MEMBERS: 'hubot, ada',
      DASHBOARD_SESSION_HOURS: '24',
      DASHBOARD_ORG_CHECK_SECONDS: '60',
      DISPATCH_BUDGET_ADMINS: 'slack:U9, github:octocat',
    });
    expect(config.service).toMatchObject({ port: 3007 });
    expect(config).toMatchObject({
      machineToken: 'a-machine-token-of-32-characters',
      signIn: {
        oauth: { clientId: 'Iv1.client', clientSecret: 'secret' },
        webUrl: 'https://ghe.example.com',
        apiUrl: 'https://api.github.com',
        allowedOrgs: ['acme', 'acme-labs'],
        orgCheckMs: 60_000,
        admins: ['octocat'],
        members: ['hubot', 'ada'],
      },
      origins: {
        publicUrl: 'https://caravel.example.com',
        allowed: ['https://ops.example.com', 'https://b.example.com:8443'],
      },
      budgets: { admins: ['slack:U9', 'github:octocat'] },
      sessions: { hours: 24 },
    });
    expect(config.sessions.keys).toBeUndefined();
  });

  it('applies the defaults: no token, no sign-in, the request origin, 12-hour sessions', () => {
    const config = loadConfig('dashboard', dashboardConfigSchema, COMMON);
    const { service, ...typed } = config;
    expect(service.port).toBe(3007);
    expect(typed).toEqual({
      signIn: {
        webUrl: 'https://github.com',
        apiUrl: 'https://api.github.com',
        allowedOrgs: [],
        // GitHub's word that an organisation's member still is one is kept five minutes.
        orgCheckMs: 300_000,
        admins: [],
        members: [],
      },
      origins: { allowed: [] },
      budgets: { admins: [] },
      // No GitHub credential: members are not checked against GitHub.
      github: { apiUrl: 'https://api.github.com', webUrl: 'https://github.com' },
      sessions: { hours: 12 },
    });
  });

  it('refuses bad values naming each environment key, half an OAuth pair included', () => {
    expect(
      problems({
        DASHBOARD_TOKEN: 'short',
        DASHBOARD_ALLOWED_ORIGINS: '*',
        DASHBOARD_SESSION_HOURS: '0',
      }),
    ).toEqual([
      expect.stringMatching(/^DASHBOARD_TOKEN: /),
      expect.stringMatching(/^DASHBOARD_ALLOWED_ORIGINS: "\*" is not an http\(s\) origin/),
      expect.stringMatching(/^DASHBOARD_SESSION_HOURS: /),
    ]);
    expect(problems({ GITHUB_OAUTH_CLIENT_ID: 'Iv1.client' })).toEqual([
      'GITHUB_OAUTH_CLIENT_SECRET: required, but unset',
    ]);
    expect(problems({ GITHUB_OAUTH_CLIENT_SECRET: 'secret' })).toEqual([
      'GITHUB_OAUTH_CLIENT_ID: required, but unset',
    ]);
  });

  it('refuses a sign-in that admits nobody, naming the three keys that say who may', () => {
    const pair = { GITHUB_OAUTH_CLIENT_ID: 'Iv1.client', GITHUB_OAUTH_CLIENT_SECRET: 'secret' };
    expect(problems(pair)).toEqual([
      expect.stringMatching(
        /^GITHUB_OAUTH_CLIENT_ID: .*nobody.*DASHBOARD_ALLOWED_ORGS, DASHBOARD_ADMINS or DASHBOARD_MEMBERS/,
      ),
    ]);
    for (const who of [
      { DASHBOARD_MEMBERS: 'ada' },
      { DASHBOARD_ADMINS: 'octocat' },
      { DASHBOARD_ALLOWED_ORGS: 'acme' },
    ]) {
      expect(
        loadConfig('dashboard', dashboardConfigSchema, { ...COMMON, ...pair, ...who }).signIn.oauth,
      ).toEqual({ clientId: 'Iv1.client', clientSecret: 'secret' });
    }
  });
});
