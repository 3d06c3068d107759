import { SandboxRepository } from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import { BUS, RUNTIME, repositoryProvider, type PlatformRuntime } from '@caravel/platform';
import { IdleReclaimer, SandboxLifecycle, type SandboxBind } from '@caravel/sandbox';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { SandboxRpcHandler } from './handlers/sandbox-rpc.handler.js';
import { SANDBOX_BROKER_CONFIG, type SandboxBrokerConfig } from './sandbox-broker.config.js';
import { RepositoryBindingStore } from './services/binding-store.js';
import { BusThreadLock } from './services/bus-thread-lock.js';
import { IdleSweepService } from './services/idle-sweep.service.js';
import { SandboxBrokerService } from './services/sandbox-broker.service.js';
import { WorkspaceHost } from './services/workspace-host.js';

const BINDINGS = Symbol('caravel.sandbox-bindings');

/** Sandbox lifecycle and RPC per thread, and the idle-sandbox sweep. */
@Module({})
export class SandboxBrokerModule {
  /**
   * @param binds Further binds of every bwrap session (the embedded `caravel run` binds SWE-agent
   *   tool bundles read-only at `/root/tools`).
   */
  static register(config: SandboxBrokerConfig, binds: readonly SandboxBind[] = []): DynamicModule {
    const log = new Logger('SandboxBroker');
    const logger = {
      warn: (message: string) => log.warn(message),
      info: (message: string) => log.log(message),
    };
    return {
      module: SandboxBrokerModule,
      controllers: [SandboxRpcHandler],
      providers: [
        { provide: SANDBOX_BROKER_CONFIG, useValue: config },
        repositoryProvider(SandboxRepository),
        { provide: WorkspaceHost, useFactory: () => WorkspaceHost.open(config, logger, binds) },
        {
          provide: BINDINGS,
          useFactory: (repository: SandboxRepository) => new RepositoryBindingStore(repository),
          inject: [SandboxRepository],
        },
        {
          provide: SandboxLifecycle,
          useFactory: (
            host: WorkspaceHost,
            bindings: RepositoryBindingStore,
            bus: Bus,
            runtime: PlatformRuntime,
          ) =>
            new SandboxLifecycle({
              provider: host.provider,
              bindings,
              lock: new BusThreadLock(bus.leases, runtime.name),
              spec: { env: host.sandboxEnv },
              logger,
            }),
          inject: [WorkspaceHost, BINDINGS, BUS, RUNTIME],
        },
        {
          provide: IdleReclaimer,
          useFactory: (
            lifecycle: SandboxLifecycle,
            bindings: RepositoryBindingStore,
            host: WorkspaceHost,
          ) =>
            new IdleReclaimer({
              lifecycle,
              bindings,
              idleTtlMs: config.sandbox.idleTtlMs,
              snapshot: host.snapshot,
              logger,
            }),
          inject: [SandboxLifecycle, BINDINGS, WorkspaceHost],
        },
        SandboxBrokerService,
        IdleSweepService,
      ],
      exports: [IdleSweepService, SandboxLifecycle],
    };
  }
}
