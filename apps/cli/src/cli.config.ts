import { agentSettingsSchema } from '@caravel/agent-runner';
import { databaseUrl, documented, logLevel, port } from '@caravel/config';
import { dashboardSettingsSchema } from '@caravel/dashboard';
import { dispatchServiceSettingsSchema } from '@caravel/dispatch';
import { ingressSettingsSchema } from '@caravel/ingress';
import { sandboxBrokerSettingsSchema } from '@caravel/sandbox-broker';
import { z } from 'zod';

/** `caravel start`: everything in one process on the embedded bus and PGlite. */
export const embeddedConfigSchema = agentSettingsSchema.extend({
  ...ingressSettingsSchema.shape,
  ...sandboxBrokerSettingsSchema.shape,
  ...dispatchServiceSettingsSchema.shape,
  ...dashboardSettingsSchema.shape,
  CARAVEL_DATA_DIR: documented(z.string().min(1).default('./.caravel'), {
    description: 'Where the embedded database (and the bus log inside it) lives',
  }),
  PORT: documented(port(3000), { description: 'HTTP port of the embedded host' }),
  HOST: documented(z.string().default('127.0.0.1'), {
    description: 'Interface the embedded host binds',
  }),
  CARAVEL_DATABASE_URL: documented(databaseUrl.optional(), {
    description: 'Use this PostgreSQL instead of PGlite in embedded mode (optional)',
  }),
  LOG_LEVEL: documented(logLevel, { description: 'Lowest log level printed' }),
  SHUTDOWN_GRACE_MS: documented(z.coerce.number().int().positive().default(20_000), {
    description: 'How long shutdown waits for in-flight handlers before closing',
  }),
});

export type EmbeddedConfig = z.output<typeof embeddedConfigSchema>;
