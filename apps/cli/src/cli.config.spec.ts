import { loadConfig } from '@caravel/config';
import { embeddedConfigSchema } from './cli.config.js';
import { embeddedConfig } from './commands/embedded-boot.js';

describe("the embedded host's configuration", () => {
  it("maps one environment to the host's slice and each service's typed configuration", () => {
    const config = loadConfig('caravel', embeddedConfigSchema, {
      CARAVEL_DATA_DIR: '/var/lib/caravel',
      PORT: '4000',
      DISPATCH_MAX_ACTIVE_RUNS: '2',
      GITHUB_BOT_HANDLE: 'helper',
      SANDBOX_PROVIDER: 'local',
      RUN_BUDGET_USD: '0.5',
      SLACK_BOT_TOKEN: 'xoxb-1',
    });
    expect(config.host).toEqual({
      dataDir: '/var/lib/caravel',
      port: 4000,
      host: '127.0.0.1',
      logLevel: 'info',
      shutdownGraceMs: 20_000,
    });
    expect(config.dispatch.dispatch.maxActiveRuns).toBe(2);
    expect(config.ingress.github.botHandle).toBe('helper');
    expect(config.sandboxBroker.sandbox.provider).toBe('local');
    expect(config.agentRunner.run.budgetUsd).toBe(0.5);
    // One key, read by every service that answers in Slack.
    expect(config.dispatch.integrations.slack.botToken).toBe('xoxb-1');
    expect(config.agentRunner.integrations.slack.botToken).toBe('xoxb-1');
    // No model: the reviewer keeps ledgers only.
    expect(config.reviewer.review.model).toBeUndefined();
    expect(config.reviewer.review.botLogin).toBe('caravel[bot]');
    expect(config.dashboard.sessions.hours).toBe(12);
  });

  it('applies the defaults of an empty environment', () => {
    const config = loadConfig('caravel', embeddedConfigSchema, {});
    expect(config.host).toMatchObject({ dataDir: './.caravel', port: 3000 });
    expect(config.host.databaseUrl).toBeUndefined();
    expect(config.sandboxBroker.sandbox.root).toBe('./.caravel/sandboxes');
  });

  it("gives the ingress the Connect keyring and the runner the token keyring, neither the other's", () => {
    // One process holds both here, but each service reads its own: the same code runs apart.
    const config = loadConfig('caravel', embeddedConfigSchema, {
      CONNECT_SECRET_KEYS: 'c1:connect',
      CARAVEL_TOKEN_KEYS: 't1:tokens',
    });
    expect(config.ingress.connectSecretKeys).toBe('c1:connect');
    expect(JSON.stringify(config.ingress)).not.toContain('t1:tokens');
    expect(config.agentRunner.tokenKeys).toBe('t1:tokens');
    expect(JSON.stringify(config.agentRunner)).not.toContain('c1:connect');
    // No default for either, as a keyring must outlive the process: unset, Connect and the vault are off.
    const bare = loadConfig('caravel', embeddedConfigSchema, {});
    expect(bare.ingress.connectSecretKeys).toBeUndefined();
    expect(bare.agentRunner.tokenKeys).toBeUndefined();
  });

  it('names the environment key of every bad value', () => {
    expect(() =>
      loadConfig('caravel', embeddedConfigSchema, { PORT: 'x', SANDBOX_EGRESS: 'open' }),
    ).toThrow(/invalid configuration for caravel:\n {2}SANDBOX_EGRESS: .*\n {2}PORT: /);
    expect(() =>
      loadConfig('caravel', embeddedConfigSchema, { GITHUB_OAUTH_CLIENT_ID: 'Iv1.client' }),
    ).toThrow(/GITHUB_OAUTH_CLIENT_SECRET: required, but unset/);
  });

  it('refuses to start on a reviewer model that cannot work, naming REVIEWER_MODEL', async () => {
    await expect(
      embeddedConfig(
        { REVIEWER_MODEL: 'anthropic:claude-sonnet-4-5', PATH: '' },
        { progress: () => undefined },
      ),
    ).rejects.toThrow(
      'REVIEWER_MODEL is anthropic:claude-sonnet-4-5, whose provider needs ANTHROPIC_API_KEY',
    );
  });

  it('refuses to start on an analyzer model that cannot work, naming ANALYZER_MODEL', async () => {
    await expect(
      embeddedConfig(
        { ANALYZER_MODEL: 'anthropic:claude-sonnet-4-5', PATH: '' },
        { progress: () => undefined },
      ),
    ).rejects.toThrow(
      'ANALYZER_MODEL is anthropic:claude-sonnet-4-5, whose provider needs ANTHROPIC_API_KEY',
    );
  });

  it('reads the SWE-agent bundles every run installs, and refuses a start whose settings cannot work', async () => {
    const config = loadConfig('caravel', embeddedConfigSchema, {
      SWE_AGENT_TOOLS_DIR: '/opt/SWE-agent',
      SWE_AGENT_BUNDLES: 'registry, windowed',
    });
    expect(config.host.sweTools).toEqual({
      toolsDir: '/opt/SWE-agent',
      bundles: ['registry', 'windowed'],
    });
    await expect(
      embeddedConfig({ SWE_AGENT_BUNDLES: 'windowed', PATH: '' }, { progress: () => undefined }),
    ).rejects.toThrow(
      'SWE_AGENT_BUNDLES needs SWE_AGENT_TOOLS_DIR (a folder of bundles or a SWE-agent checkout)',
    );
  });
});
