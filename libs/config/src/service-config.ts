import { z } from 'zod';
import { databaseUrl, documented, flag, logLevel, natsUrl, port } from './schema-helpers.js';

/**
 * The keys every distributed service reads. Each app extends this with its own keys in its
 * `<service>.config.ts` and maps the result to its typed configuration.
 */
export function distributedServiceSchema(defaultPort: number) {
  return z.object({
    PORT: documented(port(defaultPort), {
      description: 'HTTP port for health, readiness and routes',
    }),
    HOST: documented(z.string().default('0.0.0.0'), {
      description: 'Interface the HTTP server binds',
    }),
    NATS_URL: documented(natsUrl, {
      description: 'NATS server with JetStream',
      example: 'nats://127.0.0.1:4222',
    }),
    DATABASE_URL: documented(databaseUrl, {
      description: 'PostgreSQL connection string',
      example: 'postgres://postgres@127.0.0.1:5432/caravel',
      secret: true,
    }),
    DATABASE_MIGRATE: documented(flag(true), {
      description:
        'Apply pending migrations at start (false: only check they are applied, and refuse to start when not; migrations run by `caravel db migrate`)',
    }),
    BUS_NAMESPACE: documented(
      z
        .string()
        .regex(
          /^[A-Za-z][A-Za-z0-9]{0,15}$/,
          'must be 1-16 letters or digits, starting with a letter',
        )
        .optional(),
      {
        description:
          'Prefix for NATS streams, consumers and subjects (several installations on one NATS)',
      },
    ),
    LOG_LEVEL: documented(logLevel, { description: 'Lowest log level printed' }),
    SHUTDOWN_GRACE_MS: documented(z.coerce.number().int().positive().default(20_000), {
      description: 'How long shutdown waits for in-flight handlers before closing',
    }),
  });
}

/** The parsed common keys, still in the environment's shape. */
export type DistributedServiceEnv = z.output<ReturnType<typeof distributedServiceSchema>>;

/** What a distributed service's process needs: where it listens, its bus and database, logs. */
export interface ServiceConfig {
  port: number;
  host: string;
  natsUrl: string;
  databaseUrl: string;
  /** Apply pending migrations at start (true), or only check they are applied (false). */
  databaseMigrate: boolean;
  /** Prefix of the NATS streams, consumers and subjects (several installations on one NATS). */
  busNamespace?: string;
  logLevel: DistributedServiceEnv['LOG_LEVEL'];
  /** How long shutdown waits for in-flight handlers before closing. */
  shutdownGraceMs: number;
}

/** The common keys of a distributed service, as its typed `service` slice. */
export function serviceConfigOf(env: DistributedServiceEnv): ServiceConfig {
  return {
    port: env.PORT,
    host: env.HOST,
    natsUrl: env.NATS_URL,
    databaseUrl: env.DATABASE_URL,
    databaseMigrate: env.DATABASE_MIGRATE,
    ...(env.BUS_NAMESPACE ? { busNamespace: env.BUS_NAMESPACE } : {}),
    logLevel: env.LOG_LEVEL,
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
  };
}
