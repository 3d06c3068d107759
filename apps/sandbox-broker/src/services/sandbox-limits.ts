import {
  DEFAULT_ETC_ENTRIES,
  DEFAULT_SANDBOX_SETTINGS,
  type SandboxDefaults,
  type SandboxLimitOptions,
  type SandboxLogger,
} from '@caravel/sandbox';
import type { SandboxBrokerConfig } from '../sandbox-broker.config.js';

/**
 * What every new sandbox gets (any provider): its resource limits and the wall time of its
 * commands. A default command timeout above the maximum is brought down to it.
 */
export function sandboxDefaults(sandbox: SandboxBrokerConfig['sandbox']): SandboxDefaults {
  return {
    limits: {
      ...sandbox.limits,
      maxFileBytes: DEFAULT_SANDBOX_SETTINGS.limits.maxFileBytes,
    },
    defaultTimeoutMs: Math.min(sandbox.commandTimeoutMs, sandbox.maxCommandMs),
    maxTimeoutMs: sandbox.maxCommandMs,
    outputLimitBytes: DEFAULT_SANDBOX_SETTINGS.outputLimitBytes,
  };
}

/** How a bwrap broker enforces them (cgroups as configured) and what of /etc sandboxes see. */
export function bwrapConfinement(
  sandbox: SandboxBrokerConfig['sandbox'],
  logger: SandboxLogger,
): { limits: SandboxLimitOptions; etcEntries: readonly string[] } {
  return {
    limits: {
      cgroup: sandbox.cgroup,
      ...(sandbox.cgroupParent ? { cgroupParent: sandbox.cgroupParent } : {}),
      logger,
    },
    etcEntries: [...DEFAULT_ETC_ENTRIES, ...sandbox.etcExtra],
  };
}
