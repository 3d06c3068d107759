import { loadConfig } from '@caravel/config';
import { ingressConfigOf, ingressConfigSchema, ingressEnvSchema } from './ingress.config.js';
import { connectSetupWarning } from './services/connect-secrets.js';

const COMMON = { NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'pglite:memory' };

describe('ingress configuration', () => {
  it('maps the environment to the nested, typed configuration', () => {
    const config = loadConfig('ingress', ingressConfigSchema, {
      ...COMMON,
      GITHUB_WEBHOOK_SECRET: 'new',
      GITHUB_WEBHOOK_SECRET_PREVIOUS: 'old',
      SLACK_BOT_USER_ID: 'UBOT',
      ALLOWED_GITHUB_ORGS: 'acme, acme-labs',
      AUTO_REVIEW_REPOS: 'acme/*',
      REPOSITORY_ROUTES: 'slack:C1=acme/widgets',
      JIRA_BASE_URL: 'https://acme.atlassian.net',
    });
    expect(config.webhooks.github.secret).toEqual({ current: 'new', previous: 'old' });
    expect(config.webhooks.slack).toEqual({ signingSecret: {}, botUserId: 'UBOT' });
    expect(config.github).toEqual({
      botHandle: 'caravel',
      allowedOrgs: ['acme', 'acme-labs'],
      allowedRepos: [],
      autoReviewRepos: ['acme/*'],
      autoReviewDrafts: false,
    });
    expect(config.routing).toEqual({
      trustedAuthors: [],
      repositoryRoutes: ['slack:C1=acme/widgets'],
    });
    expect(config.integrations.jira).toEqual({ baseUrl: 'https://acme.atlassian.net' });
    expect(config.service.port).toBe(3001);
  });

  it("holds no GitHub credential, even from an environment that has the App's", () => {
    // The embedded host hands every service the keys of all of them.
    const everyServiceKeys = {
      ...ingressEnvSchema.parse({}),
      GITHUB_APP_ID: '42',
      GITHUB_APP_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----',
      GITHUB_TOKEN: 'ghp_development',
    };
    const config = ingressConfigOf(everyServiceKeys);
    expect(config.integrations.github.app).toBeUndefined();
    expect(config.integrations.github.developmentToken).toBeUndefined();
    expect(
      Object.keys(ingressEnvSchema.shape).filter((key) => key.startsWith('GITHUB_APP')),
    ).toEqual([]);
  });

  it('seals Connect secrets with CONNECT_SECRET_KEYS and never reads the token keyring', () => {
    // An exploit of the webhook parser must not find the key that opens people's GitHub tokens,
    // even in the embedded host's environment, which holds every service's keys.
    const everyServiceKeys = {
      ...ingressEnvSchema.parse({}),
      CONNECT_SECRET_KEYS: 'c1:connect',
      CARAVEL_TOKEN_KEYS: 't1:tokens',
    };
    const config = ingressConfigOf(everyServiceKeys);
    expect(config.connectSecretKeys).toBe('c1:connect');
    expect(JSON.stringify(config)).not.toContain('t1:tokens');
    expect(Object.keys(ingressEnvSchema.shape)).not.toContain('CARAVEL_TOKEN_KEYS');
    expect(ingressConfigOf(ingressEnvSchema.parse({})).connectSecretKeys).toBeUndefined();
  });

  it('warns at start when the Connect app is on without its keyring, naming the re-seal', () => {
    const on = { ...COMMON, CONFLUENCE_BASE_URL: 'https://caravel.example.test' };
    const warning = connectSetupWarning(loadConfig('ingress', ingressConfigSchema, on));
    expect(warning).toContain('CONNECT_SECRET_KEYS is not');
    expect(warning).toContain('caravel connect reseal');
    const keyed = { ...on, CONNECT_SECRET_KEYS: 'c1:connect' };
    expect(connectSetupWarning(loadConfig('ingress', ingressConfigSchema, keyed))).toBeUndefined();
    expect(connectSetupWarning(loadConfig('ingress', ingressConfigSchema, COMMON))).toBeUndefined();
  });

  it('applies the defaults', () => {
    const config = loadConfig('ingress', ingressConfigSchema, COMMON);
    expect(config.deliveryRetentionHours).toBe(168);
    expect(config.webhooks.jira).toEqual({
      sharedSecret: {},
      hmacSecret: {},
      secretHeader: 'x-caravel-secret',
    });
    expect(config.confluence).toEqual({
      appKey: 'caravel',
      connectKeysUrl: 'https://connect-install-keys.atlassian.com',
    });
  });

  it('refuses bad values with CONFIG_INVALID naming each environment key', () => {
    let caught: unknown;
    try {
      loadConfig('ingress', ingressConfigSchema, {
        ...COMMON,
        ALLOWED_GITHUB_REPOS: 'not-a-repo',
        DELIVERY_RETENTION_HOURS: '24',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'CONFIG_INVALID',
      details: {
        problems: [
          'ALLOWED_GITHUB_REPOS: "not-a-repo" is not owner/name (got "not-a-repo")',
          expect.stringMatching(/^DELIVERY_RETENTION_HOURS: /),
        ],
      },
    });
  });
});
