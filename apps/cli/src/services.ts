import { AgentRunnerModule, agentRunnerConfigSchema } from '@caravel/agent-runner';
import { AnalyzerModule, analyzerConfigSchema } from '@caravel/analyzer';
import { envSchemaOf, type Clock, type EnvSection } from '@caravel/config';
import { DashboardModule, dashboardConfigSchema } from '@caravel/dashboard';
import { DispatchModule, dispatchConfigSchema } from '@caravel/dispatch';
import { IngressModule, ingressConfigSchema } from '@caravel/ingress';
import { ReviewerModule, reviewerConfigSchema } from '@caravel/reviewer';
import type { RunBundles } from '@caravel/sandbox';
import { SandboxBrokerModule, sandboxBrokerConfigSchema } from '@caravel/sandbox-broker';
import type { DynamicModule, Type } from '@nestjs/common';
import type { z } from 'zod';
import { embeddedConfigSchema, type EmbeddedConfig } from './cli.config.js';

/** What a test may swap in when it hosts the services (the embedded host, scenario pairs). */
export interface ServiceOverrides {
  /** Where the services read the time (sweeps, wakeups, signature freshness); the system's otherwise. */
  clock?: Clock;
  /** SWE-agent tool bundles every run installs, bound read-only into each sandbox (`caravel run`). */
  toolBundles?: RunBundles;
}

/** The seven services: each a root module, its config schema and its own process entry. */
export const SERVICES = [
  {
    name: 'ingress',
    module: (config, overrides = {}) => IngressModule.register(config.ingress, overrides.clock),
    schema: envSchemaOf(ingressConfigSchema),
  },
  {
    name: 'dispatch',
    module: (config, overrides = {}) => DispatchModule.register(config.dispatch, overrides.clock),
    schema: envSchemaOf(dispatchConfigSchema),
  },
  {
    name: 'agent-runner',
    module: (config, overrides = {}) =>
      AgentRunnerModule.register(config.agentRunner, overrides.toolBundles?.bundles),
    schema: envSchemaOf(agentRunnerConfigSchema),
  },
  {
    name: 'reviewer',
    module: (config) => ReviewerModule.register(config.reviewer),
    schema: envSchemaOf(reviewerConfigSchema),
  },
  {
    name: 'analyzer',
    module: (config, overrides = {}) => AnalyzerModule.register(config.analyzer, overrides.clock),
    schema: envSchemaOf(analyzerConfigSchema),
  },
  {
    name: 'sandbox-broker',
    module: (config, overrides = {}) =>
      SandboxBrokerModule.register(config.sandboxBroker, overrides.toolBundles?.binds),
    schema: envSchemaOf(sandboxBrokerConfigSchema),
  },
  {
    name: 'dashboard',
    module: (config) => DashboardModule.register(config.dashboard),
    schema: envSchemaOf(dashboardConfigSchema),
  },
] as const satisfies readonly {
  name: string;
  /** The service's root module, given the embedded host's configuration. */
  module: (config: EmbeddedConfig, overrides?: ServiceOverrides) => Type | DynamicModule;
  /** The environment keys its distributed process reads (what deployments must set). */
  schema: z.ZodObject;
}[];

export type ServiceName = (typeof SERVICES)[number]['name'];

/** Sections of `.env.example`, in the order an operator reads them. */
export const ENV_SECTIONS: readonly EnvSection[] = [
  { title: 'embedded (caravel start)', schema: embeddedConfigSchema },
  ...SERVICES.map((s) => ({ title: `${s.name} (distributed)`, schema: s.schema })),
];
