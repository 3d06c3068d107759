import {
  agentRunnerConfigOf,
  agentRunnerEnvSchema,
  type AgentRunnerConfig,
} from '@caravel/agent-runner';
import { analyzerConfigOf, analyzerEnvSchema, type AnalyzerConfig } from '@caravel/analyzer';
import { databaseUrl, documented, logLevel, port } from '@caravel/config';
import {
  checkDashboardSignIn,
  dashboardConfigOf,
  dashboardEnvSchema,
  type DashboardConfig,
} from '@caravel/dashboard';
import { dispatchConfigOf, dispatchEnvSchema, type DispatchConfig } from '@caravel/dispatch';
import { ingressConfigOf, ingressEnvSchema, type IngressConfig } from '@caravel/ingress';
import { reviewerConfigOf, reviewerEnvSchema, type ReviewerConfig } from '@caravel/reviewer';
import {
  sandboxBrokerConfigOf,
  sandboxBrokerEnvSchema,
  type SandboxBrokerConfig,
} from '@caravel/sandbox-broker';
import { join } from 'node:path';
import { z } from 'zod';
import {
  evalScheduleEnvSchema,
  evalSchedulesConfigOf,
  type EvalSchedulesConfig,
} from './commands/eval/schedule/eval-scheduler.config.js';

/** The environment keys of `caravel start`: every service's own keys, and the host's. */
export const embeddedEnvSchema = agentRunnerEnvSchema.extend({
  ...ingressEnvSchema.shape,
  ...sandboxBrokerEnvSchema.shape,
  ...dispatchEnvSchema.shape,
  ...reviewerEnvSchema.shape,
  ...analyzerEnvSchema.shape,
  ...dashboardEnvSchema.shape,
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
  SWE_AGENT_TOOLS_DIR: documented(z.string().min(1).optional(), {
    description:
      'SWE-agent tool bundles for every run (a folder of them or a SWE-agent checkout; bwrap); caravel run --tools-dir overrides',
  }),
  SWE_AGENT_BUNDLES: documented(z.string().optional(), {
    description:
      'The bundles of SWE_AGENT_TOOLS_DIR to install, comma-separated, in order (e.g. registry,windowed)',
  }),
  ...evalScheduleEnvSchema.shape,
});

/** `caravel start`: everything in one process on the embedded bus and PGlite, typed per service. */
export interface EmbeddedConfig {
  host: {
    /** Where the embedded database (and the bus log inside it) lives. */
    dataDir: string;
    port: number;
    host: string;
    /** A PostgreSQL to use instead of PGlite. */
    databaseUrl?: string;
    logLevel: z.output<typeof logLevel>;
    shutdownGraceMs: number;
    /** SWE-agent tool bundles every run installs (`SWE_AGENT_TOOLS_DIR`, `SWE_AGENT_BUNDLES`). */
    sweTools?: { toolsDir?: string; bundles: string[] };
  };
  /** Scheduled eval suites (`caravel start` only): the sweep's interval, the runs' folder. */
  evalSchedules: EvalSchedulesConfig;
  ingress: IngressConfig;
  dispatch: DispatchConfig;
  agentRunner: AgentRunnerConfig;
  reviewer: ReviewerConfig;
  analyzer: AnalyzerConfig;
  sandboxBroker: SandboxBrokerConfig;
  dashboard: DashboardConfig;
}

/** The bundles the embedded host's runs install; a list without a folder is kept for the preflight to refuse. */
function sweToolsOf(
  env: z.output<typeof embeddedEnvSchema>,
): Pick<EmbeddedConfig['host'], 'sweTools'> {
  const bundles = (env.SWE_AGENT_BUNDLES ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (env.SWE_AGENT_TOOLS_DIR === undefined && bundles.length === 0) return {};
  const toolsDir = env.SWE_AGENT_TOOLS_DIR;
  return { sweTools: { ...(toolsDir === undefined ? {} : { toolsDir }), bundles } };
}

/** The embedded host's configuration: the keys above, each service's slice mapped at parse time. */
export const embeddedConfigSchema = embeddedEnvSchema
  .superRefine(checkDashboardSignIn)
  .transform((env): EmbeddedConfig => ({
    host: {
      dataDir: env.CARAVEL_DATA_DIR,
      port: env.PORT,
      host: env.HOST,
      ...(env.CARAVEL_DATABASE_URL ? { databaseUrl: env.CARAVEL_DATABASE_URL } : {}),
      logLevel: env.LOG_LEVEL,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      ...sweToolsOf(env),
    },
    ingress: ingressConfigOf(env),
    dispatch: dispatchConfigOf(env),
    agentRunner: agentRunnerConfigOf(env),
    reviewer: reviewerConfigOf(env),
    analyzer: analyzerConfigOf(env),
    sandboxBroker: sandboxBrokerConfigOf(env),
    dashboard: dashboardConfigOf(env),
    evalSchedules: evalSchedulesConfigOf(env, join(env.CARAVEL_DATA_DIR, 'evals')),
  }));
