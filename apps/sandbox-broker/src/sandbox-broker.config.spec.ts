import { loadConfig } from '@caravel/config';
import { sandboxBrokerConfigSchema } from './sandbox-broker.config.js';

const COMMON = { NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'pglite:memory' };
const MiB = 1024 ** 2;

/** What loading `env` throws (the test fails when it loads). */
function problemsOf(env: Record<string, string>): unknown {
  try {
    loadConfig('sandbox-broker', sandboxBrokerConfigSchema, { ...COMMON, ...env });
  } catch (error) {
    return error;
  }
  throw new Error('the configuration loaded');
}

describe('sandbox broker configuration', () => {
  it('maps the environment to the nested, typed configuration', () => {
    const config = loadConfig('sandbox-broker', sandboxBrokerConfigSchema, {
      ...COMMON,
      SANDBOX_PROVIDER: 'local',
      SANDBOX_ROOT: '/srv/sandboxes',
      SANDBOX_MEMORY_MIB: '512',
      SANDBOX_EGRESS_ALLOWLIST: 'registry.npmjs.org, *.pythonhosted.org',
      SANDBOX_EGRESS_MIRRORS: 'registry.npmjs.org=https://npm.mirror.internal',
      SANDBOX_ETC_EXTRA: 'emacs',
      GITHUB_HOST: 'https://ghe.acme.test',
    });
    expect(config.sandbox).toMatchObject({
      provider: 'local',
      root: '/srv/sandboxes',
      idleTtlMs: 7 * 24 * 3_600_000,
      cgroup: 'auto',
      etcExtra: ['emacs'],
      limits: { maxMemoryBytes: 512 * MiB, maxProcesses: 512, maxTmpBytes: 1024 * MiB },
    });
    expect(config.sandbox.snapshotDir).toBeUndefined();
    expect(config.egress).toEqual({
      mode: 'proxy',
      allowlist: ['registry.npmjs.org', '*.pythonhosted.org'],
      mirrors: { 'registry.npmjs.org': 'https://npm.mirror.internal' },
    });
    expect(config.github).toEqual({
      apiUrl: 'https://api.github.com',
      webUrl: 'https://ghe.acme.test',
    });
    expect(config.service.port).toBe(3006);
  });

  it('defaults to bubblewrap behind the egress proxy, allowing the package registries', () => {
    const config = loadConfig('sandbox-broker', sandboxBrokerConfigSchema, COMMON);
    expect(config.sandbox.provider).toBe('bwrap');
    expect(config.egress.mode).toBe('proxy');
    expect(config.egress.allowlist).toContain('registry.npmjs.org');
  });

  it('reads the kubernetes settings only for the kubernetes provider, refusing a bad namespace', () => {
    const config = loadConfig('sandbox-broker', sandboxBrokerConfigSchema, {
      ...COMMON,
      SANDBOX_PROVIDER: 'kubernetes',
      SANDBOX_K8S_NAMESPACE: 'team-sandboxes',
      SANDBOX_K8S_RUNTIME_CLASS: 'gvisor',
      SANDBOX_K8S_PROXY_URL: 'http://caravel-sandbox-broker.caravel.svc:3128',
    });
    expect(config.sandbox.kubernetes).toEqual({
      namespace: 'team-sandboxes',
      image: 'caravel/sandbox:bookworm',
      runtimeClassName: 'gvisor',
      claimName: 'caravel-sandboxes',
      claimSubPath: '',
      owner: 'caravel',
      proxyUrl: 'http://caravel-sandbox-broker.caravel.svc:3128',
      egressPort: 3128,
    });
    expect(
      loadConfig('sandbox-broker', sandboxBrokerConfigSchema, COMMON).sandbox.kubernetes,
    ).toBeUndefined();
    expect(
      problemsOf({ SANDBOX_PROVIDER: 'kubernetes', SANDBOX_K8S_NAMESPACE: 'Team_A' }),
    ).toMatchObject({
      details: { problems: [expect.stringMatching(/^SANDBOX_K8S_NAMESPACE: /)] },
    });
  });

  it('refuses bad values with CONFIG_INVALID naming each environment key', () => {
    expect(
      problemsOf({ SANDBOX_PROVIDER: 'docker', SANDBOX_EGRESS_MIRRORS: 'npm=ftp://x' }),
    ).toMatchObject({
      code: 'CONFIG_INVALID',
      details: {
        problems: [
          expect.stringMatching(/^SANDBOX_PROVIDER: /),
          expect.stringMatching(/^SANDBOX_EGRESS_MIRRORS: "npm=ftp:\/\/x" is not host=/),
        ],
      },
    });
  });
});
