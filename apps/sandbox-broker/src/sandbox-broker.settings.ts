import { documented } from '@caravel/config';
import { githubAppSettingsSchema } from '@caravel/integrations';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

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
  ...githubAppSettingsSchema.shape,
});

export type SandboxBrokerSettings = z.output<typeof sandboxBrokerSettingsSchema>;

/** Injection token of the broker's {@link SandboxBrokerSettings}. */
export const BROKER_SETTINGS = Symbol('caravel.sandbox-broker-settings');
