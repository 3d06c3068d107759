import { documented } from '@caravel/config';
import { githubAppSettingsSchema } from '@caravel/integrations';
import { CGROUP_MODES } from '@caravel/sandbox';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Names under the host's /etc (no `..`, no leading slash), comma-separated. */
const etcNames = z
  .string()
  .default('')
  .transform((value, context) => {
    const names = entries(value);
    for (const name of names) {
      if (
        !/^[A-Za-z0-9_.+-]+(\/[A-Za-z0-9_.+-]+)*\*?$/.test(name) ||
        name.split('/').includes('..')
      ) {
        context.addIssue({ code: 'custom', message: `"${name}" is not a name under /etc` });
      }
    }
    return names;
  });

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
  SANDBOX_MAX_PROCESSES: documented(positiveInt(512), {
    description:
      'Processes and threads one sandbox may run at once (cgroup pids.max; without cgroups, ulimit -u)',
  }),
  SANDBOX_MEMORY_MIB: documented(positiveInt(4096), {
    description:
      'Memory of one sandbox in MiB, its /tmp included (cgroup; without cgroups, the address space of each process)',
  }),
  SANDBOX_CPUS: documented(z.coerce.number().positive().max(1024).default(2), {
    description:
      "One sandbox's CPU share in CPUs, e.g. 1.5 (a cgroup CPU quota; not limited without cgroups)",
  }),
  SANDBOX_WORKSPACE_MIB: documented(positiveInt(10_240), {
    description:
      "Disk one sandbox's workspace and home may use together, in MiB (a host-side watchdog stops what writes past it)",
  }),
  SANDBOX_TMP_MIB: documented(positiveInt(1024), {
    description: "Size of a sandbox's /tmp in MiB (a tmpfs, counted in its memory)",
  }),
  SANDBOX_OPEN_FILES: documented(positiveInt(4096), {
    description: 'Open files per process in a sandbox (ulimit -n)',
  }),
  SANDBOX_COMMAND_TIMEOUT_MS: documented(positiveInt(120_000), {
    description:
      'Wall time of a sandbox command whose caller names none, in milliseconds (at most SANDBOX_MAX_COMMAND_MS)',
  }),
  SANDBOX_MAX_COMMAND_MS: documented(positiveInt(3_600_000), {
    description:
      'The longest wall time any sandbox command may ask for, in milliseconds (a longer request is refused)',
  }),
  SANDBOX_CGROUP: documented(z.enum(CGROUP_MODES).default('auto'), {
    description:
      "How bwrap sandboxes are limited: auto (cgroup v2 — SANDBOX_CGROUP_PARENT, a systemd scope or the broker's own delegated cgroup — then v1), v2, v1, systemd, or none (rlimits only); the choice is logged at start",
  }),
  SANDBOX_CGROUP_PARENT: documented(z.string().min(1).optional(), {
    description:
      "The cgroup sandbox cgroups are made under, as a path in the hierarchy (v2: delegated to the broker); default: v2 the broker's own or a systemd scope, v1 /caravel-sandboxes",
    example: '/caravel.slice/sandboxes',
  }),
  SANDBOX_ETC_EXTRA: documented(etcNames, {
    description:
      'Host /etc entries bwrap sandboxes see beyond the default set (comma list of names under /etc, name* by prefix); never put files with credentials here',
    example: 'emacs,texmf',
  }),
  ...githubAppSettingsSchema.shape,
});

export type SandboxBrokerSettings = z.output<typeof sandboxBrokerSettingsSchema>;

/** Injection token of the broker's {@link SandboxBrokerSettings}. */
export const BROKER_SETTINGS = Symbol('caravel.sandbox-broker-settings');
