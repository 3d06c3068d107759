import {
  DEFAULT_ETC_ENTRIES,
  DEFAULT_SANDBOX_SETTINGS,
  type SandboxDefaults,
  type SandboxLimitOptions,
  type SandboxLogger,
} from '@caravel/sandbox';
import type { SandboxBrokerSettings } from '../sandbox-broker.settings.js';

const MiB = 1024 ** 2;

/**
 * What every new sandbox gets (any provider): its resource limits and the wall time of its
 * commands. A default command timeout above the maximum is brought down to it.
 */
export function sandboxDefaults(settings: SandboxBrokerSettings): SandboxDefaults {
  return {
    limits: {
      maxProcesses: settings.SANDBOX_MAX_PROCESSES,
      maxMemoryBytes: settings.SANDBOX_MEMORY_MIB * MiB,
      maxCpus: settings.SANDBOX_CPUS,
      maxFileBytes: DEFAULT_SANDBOX_SETTINGS.limits.maxFileBytes,
      maxOpenFiles: settings.SANDBOX_OPEN_FILES,
      maxWorkspaceBytes: settings.SANDBOX_WORKSPACE_MIB * MiB,
      maxTmpBytes: settings.SANDBOX_TMP_MIB * MiB,
    },
    defaultTimeoutMs: Math.min(
      settings.SANDBOX_COMMAND_TIMEOUT_MS,
      settings.SANDBOX_MAX_COMMAND_MS,
    ),
    maxTimeoutMs: settings.SANDBOX_MAX_COMMAND_MS,
    outputLimitBytes: DEFAULT_SANDBOX_SETTINGS.outputLimitBytes,
  };
}

/** How a bwrap broker enforces them (cgroups as configured) and what of /etc sandboxes see. */
export function bwrapConfinement(
  settings: SandboxBrokerSettings,
  logger: SandboxLogger,
): { limits: SandboxLimitOptions; etcEntries: readonly string[] } {
  return {
    limits: {
      cgroup: settings.SANDBOX_CGROUP,
      ...(settings.SANDBOX_CGROUP_PARENT ? { cgroupParent: settings.SANDBOX_CGROUP_PARENT } : {}),
      logger,
    },
    etcEntries: [...DEFAULT_ETC_ENTRIES, ...settings.SANDBOX_ETC_EXTRA],
  };
}
