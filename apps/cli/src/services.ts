import { AgentRunnerModule, agentRunnerConfigSchema } from '@caravel/agent-runner';
import { AnalyzerModule, analyzerConfigSchema } from '@caravel/analyzer';
import type { EnvSection } from '@caravel/config';
import { DashboardModule, dashboardConfigSchema } from '@caravel/dashboard';
import { DispatchModule, dispatchConfigSchema } from '@caravel/dispatch';
import { IngressModule, ingressConfigSchema } from '@caravel/ingress';
import { ReviewerModule, reviewerConfigSchema } from '@caravel/reviewer';
import { SandboxBrokerModule, sandboxBrokerConfigSchema } from '@caravel/sandbox-broker';
import type { DynamicModule, Type } from '@nestjs/common';
import { embeddedConfigSchema, type EmbeddedConfig } from './cli.config.js';

/** What a test may swap in when it hosts the services (the embedded host, scenario pairs). */
export interface ServiceOverrides {
  /** Where dispatch reads the time (sweeps, wakeups, admissions); the system clock otherwise. */
  dispatchClock?: { now(): Date };
}

/** The seven services: each a root module, its config schema and its own process entry. */
export const SERVICES = [
  {
    name: 'ingress',
    module: (settings: EmbeddedConfig) => IngressModule.register(settings),
    schema: ingressConfigSchema,
  },
  {
    name: 'dispatch',
    module: (settings: EmbeddedConfig, overrides: ServiceOverrides = {}) =>
      DispatchModule.register(settings, overrides.dispatchClock),
    schema: dispatchConfigSchema,
  },
  {
    name: 'agent-runner',
    module: (settings: EmbeddedConfig) => AgentRunnerModule.register(settings),
    schema: agentRunnerConfigSchema,
  },
  { name: 'reviewer', module: () => ReviewerModule, schema: reviewerConfigSchema },
  { name: 'analyzer', module: () => AnalyzerModule, schema: analyzerConfigSchema },
  {
    name: 'sandbox-broker',
    module: (settings: EmbeddedConfig) => SandboxBrokerModule.register(settings),
    schema: sandboxBrokerConfigSchema,
  },
  {
    name: 'dashboard',
    module: (settings: EmbeddedConfig) => DashboardModule.register(settings),
    schema: dashboardConfigSchema,
  },
] as const satisfies readonly {
  name: string;
  /** The service's root module, given the embedded host's configuration. */
  module: (settings: EmbeddedConfig, overrides?: ServiceOverrides) => Type | DynamicModule;
  schema: EnvSection['schema'];
}[];

export type ServiceName = (typeof SERVICES)[number]['name'];

/** Sections of `.env.example`, in the order an operator reads them. */
export const ENV_SECTIONS: readonly EnvSection[] = [
  { title: 'embedded (caravel start)', schema: embeddedConfigSchema },
  ...SERVICES.map((s) => ({ title: `${s.name} (distributed)`, schema: s.schema })),
];
