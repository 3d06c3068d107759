import {
  distributedServiceSchema,
  documented,
  positiveInt,
  serviceConfigOf,
  splitList,
} from '@caravel/config';
import { githubAppSettingsSchema, githubConfigOf, type GitHubConfig } from '@caravel/integrations';
import { CGROUP_MODES, DEFAULT_EGRESS_ALLOWLIST, type CgroupMode } from '@caravel/sandbox';
import { z } from 'zod';
import {
  kubernetesSandboxConfigOf,
  kubernetesSandboxEnvSchema,
  type KubernetesSandboxConfig,
} from './sandbox-kubernetes.config.js';

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

const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

/** Comma-separated entries, trimmed, empties dropped (`none`: no entry at all). */
function entries(value: string): string[] {
  return value.trim() === 'none' ? [] : splitList(value);
}

const hostList = z
  .string()
  .default(DEFAULT_EGRESS_ALLOWLIST.join(','))
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
 * The sandbox broker's own environment keys, beyond the common service keys. The same keys
 * configure the embedded host (`caravel start`, `caravel run`) and the distributed service.
 */
export const sandboxBrokerEnvSchema = z.object({
  SANDBOX_PROVIDER: documented(z.enum(['bwrap', 'local', 'kubernetes']).default('bwrap'), {
    description:
      'bwrap (isolated, Linux), kubernetes (one pod per sandbox, created through the Kubernetes API; the broker runs in the cluster) or local (a plain directory: development only)',
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
  ...kubernetesSandboxEnvSchema.shape,
  ...githubAppSettingsSchema.shape,
});

const MiB = 1024 ** 2;

/** What the broker runs on, typed: its sandboxes, their egress, and the GitHub they push to. */
export interface SandboxBrokerConfig {
  sandbox: {
    provider: 'bwrap' | 'local' | 'kubernetes';
    /** The `kubernetes` provider's settings (present when it is the provider). */
    kubernetes?: KubernetesSandboxConfig;
    /** Where sandbox workdirs live (the embedded host moves it under its data directory). */
    root: string;
    /** Where reclaimed sandboxes' work is kept (default: `sandbox-snapshots` beside the root). */
    snapshotDir?: string;
    /** A sandbox unused this long is reclaimed. */
    idleTtlMs: number;
    /** How often the broker looks for idle sandboxes. */
    sweepIntervalMs: number;
    /** How often a running command checks that its caller is still there. */
    callerProbeMs: number;
    /** Wall time of a command whose caller names none, and the most any may ask for. */
    commandTimeoutMs: number;
    maxCommandMs: number;
    /** Per-sandbox resource limits. */
    limits: {
      maxProcesses: number;
      maxMemoryBytes: number;
      maxCpus: number;
      maxOpenFiles: number;
      maxWorkspaceBytes: number;
      maxTmpBytes: number;
    };
    /** How bwrap sandboxes are limited, and under which cgroup. */
    cgroup: CgroupMode;
    cgroupParent?: string;
    /** Host `/etc` entries bwrap sandboxes see beyond the default set. */
    etcExtra: readonly string[];
  };
  egress: {
    /** `proxy`: only through the broker's egress proxy; `none`: no network at all. */
    mode: 'proxy' | 'none';
    /** Hosts reachable without credentials (`*.suffix` wildcards). */
    allowlist: readonly string[];
    /** Where an allowlisted host is really reached (host → registry mirror URL). */
    mirrors: Readonly<Record<string, string>>;
    /** Where the proxies' sockets live (default: `sandbox-egress` beside the root). */
    dir?: string;
  };
  /** The GitHub App clones and pushes go through (the credential proxy injects its tokens). */
  github: GitHubConfig;
}

/** Maps the broker's parsed keys to its typed configuration. */
export function sandboxBrokerConfigOf(
  env: z.output<typeof sandboxBrokerEnvSchema>,
): SandboxBrokerConfig {
  return {
    sandbox: {
      provider: env.SANDBOX_PROVIDER,
      ...(env.SANDBOX_PROVIDER === 'kubernetes'
        ? { kubernetes: kubernetesSandboxConfigOf(env) }
        : {}),
      root: env.SANDBOX_ROOT,
      ...(env.SANDBOX_SNAPSHOT_DIR ? { snapshotDir: env.SANDBOX_SNAPSHOT_DIR } : {}),
      idleTtlMs: env.SANDBOX_IDLE_TTL_MS,
      sweepIntervalMs: env.SANDBOX_SWEEP_INTERVAL_MS,
      callerProbeMs: env.SANDBOX_CALLER_PROBE_MS,
      commandTimeoutMs: env.SANDBOX_COMMAND_TIMEOUT_MS,
      maxCommandMs: env.SANDBOX_MAX_COMMAND_MS,
      limits: {
        maxProcesses: env.SANDBOX_MAX_PROCESSES,
        maxMemoryBytes: env.SANDBOX_MEMORY_MIB * MiB,
        maxCpus: env.SANDBOX_CPUS,
        maxOpenFiles: env.SANDBOX_OPEN_FILES,
        maxWorkspaceBytes: env.SANDBOX_WORKSPACE_MIB * MiB,
        maxTmpBytes: env.SANDBOX_TMP_MIB * MiB,
      },
      cgroup: env.SANDBOX_CGROUP,
      ...(env.SANDBOX_CGROUP_PARENT ? { cgroupParent: env.SANDBOX_CGROUP_PARENT } : {}),
      etcExtra: env.SANDBOX_ETC_EXTRA,
    },
    egress: {
      mode: env.SANDBOX_EGRESS,
      allowlist: env.SANDBOX_EGRESS_ALLOWLIST,
      mirrors: env.SANDBOX_EGRESS_MIRRORS,
      ...(env.SANDBOX_EGRESS_DIR ? { dir: env.SANDBOX_EGRESS_DIR } : {}),
    },
    github: githubConfigOf(env),
  };
}

/** The distributed broker: the common service keys and its own, typed at parse time. */
export const sandboxBrokerConfigSchema = distributedServiceSchema(3006)
  .extend(sandboxBrokerEnvSchema.shape)
  .transform((env) => ({ service: serviceConfigOf(env), ...sandboxBrokerConfigOf(env) }));

/** Injection token of the broker's {@link SandboxBrokerConfig}. */
export const SANDBOX_BROKER_CONFIG = Symbol('caravel.sandbox-broker-config');
