import { documented } from '@caravel/config';
import { githubAppSettingsSchema } from '@caravel/integrations';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Package registries a sandbox may reach out of the box (no credentials are ever added). */
const DEFAULT_EGRESS_ALLOWLIST = [
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'pypi.org',
  'files.pythonhosted.org',
  'proxy.golang.org',
  'sum.golang.org',
  'index.crates.io',
  'static.crates.io',
  'repo.maven.apache.org',
  'repo1.maven.org',
  'rubygems.org',
].join(',');

const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

/** Comma-separated entries, trimmed, empties dropped (`none`: no entry at all). */
function entries(value: string): string[] {
  if (value.trim() === 'none') return [];
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

const hostList = z
  .string()
  .default(DEFAULT_EGRESS_ALLOWLIST)
  .transform((value, context) => {
    const hosts = entries(value);
    for (const host of hosts) {
      if (!HOST.test(host)) {
        context.addIssue({ code: 'custom', message: `"${host}" is not a host or *.suffix` });
      }
    }
    return hosts;
  });

const mirrorList = z
  .string()
  .default('')
  .transform((value, context) => {
    const mirrors: Record<string, string> = {};
    for (const entry of entries(value)) {
      const [host = '', url = ''] = entry.split(/=(.*)/s);
      if (!HOST.test(host) || !URL.canParse(url) || !/^https?:/.test(url)) {
        context.addIssue({ code: 'custom', message: `"${entry}" is not host=http(s)://url` });
      } else mirrors[host.toLowerCase()] = url;
    }
    return mirrors;
  });

/**
 * What the sandbox broker needs beyond the common service keys. The same keys configure the
 * embedded host (`caravel start`, `caravel run`) and the distributed service.
 */
export const sandboxBrokerSettingsSchema = z.object({
  SANDBOX_PROVIDER: documented(z.enum(['bwrap', 'local']).default('bwrap'), {
    description: 'bwrap (isolated, Linux) or local (a plain directory: development only)',
  }),
  SANDBOX_ROOT: documented(z.string().min(1).default('./.caravel/sandboxes'), {
    description: 'Where sandbox workdirs live on the broker host',
  }),
  SANDBOX_SNAPSHOT_DIR: documented(z.string().min(1).optional(), {
    description:
      'Where the work of reclaimed sandboxes is kept as git bundles (default: sandbox-snapshots beside SANDBOX_ROOT)',
  }),
  SANDBOX_IDLE_TTL_MS: documented(positiveInt(7 * 24 * 3_600_000), {
    description: 'A sandbox unused this long is reclaimed (its unsaved work snapshotted first)',
  }),
  SANDBOX_SWEEP_INTERVAL_MS: documented(positiveInt(15 * 60_000), {
    description: 'How often the broker looks for idle sandboxes',
  }),
  SANDBOX_CALLER_PROBE_MS: documented(positiveInt(1_000), {
    description:
      'How often a running command checks that its caller is still there (abandoned after two misses)',
  }),
  SANDBOX_EGRESS: documented(z.enum(['proxy', 'none']).default('proxy'), {
    description:
      "bwrap sandboxes' network: proxy (only through the broker's egress proxy: the thread's GitHub repository with credentials injected, and the allowlist) or none (no network at all)",
  }),
  SANDBOX_EGRESS_ALLOWLIST: documented(hostList, {
    description:
      'Hosts sandboxes may reach through the egress proxy, without credentials (comma list, *.suffix wildcards; none for none); default: the public package registries',
    example: 'registry.npmjs.org,*.pythonhosted.org',
  }),
  SANDBOX_EGRESS_MIRRORS: documented(mirrorList, {
    description:
      'Where an allowlisted host is really reached (comma list of host=url: a registry mirror)',
    example: 'registry.npmjs.org=https://npm.mirror.internal',
  }),
  SANDBOX_EGRESS_DIR: documented(z.string().min(1).optional(), {
    description:
      "Where the sandboxes' egress proxy sockets live (default: sandbox-egress beside SANDBOX_ROOT; keep it short, a socket path has at most 107 bytes)",
  }),
  ...githubAppSettingsSchema.shape,
});

export type SandboxBrokerSettings = z.output<typeof sandboxBrokerSettingsSchema>;

/** Injection token of the broker's {@link SandboxBrokerSettings}. */
export const BROKER_SETTINGS = Symbol('caravel.sandbox-broker-settings');
