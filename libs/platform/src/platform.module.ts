import { MessagePublisher } from '@caravel/messaging';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AppErrorFilter } from './app-error.filter.js';
import { DirectRoutes } from './direct-routes.js';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';
import { ReadinessService } from './readiness.service.js';
import type { PlatformRuntime } from './runtime.js';
import { RuntimeMetricsService } from './runtime-metrics.service.js';
import { BUS, DATABASE, RUNTIME } from './tokens.js';

/**
 * Provides the bus, the database, a typed publisher, health probes, the error filter and the direct routes to every
 * service module of a process. Imported once per process (one service, or all of them embedded).
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(runtime: PlatformRuntime): DynamicModule {
    return {
      module: PlatformModule,
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: BUS, useValue: runtime.bus },
        { provide: DATABASE, useValue: runtime.database },
        { provide: MessagePublisher, useValue: new MessagePublisher(runtime.bus, runtime.name) },
        { provide: APP_FILTER, useClass: AppErrorFilter },
        DirectRoutes,
        ReadinessService,
        RuntimeMetricsService,
      ],
      exports: [RUNTIME, BUS, DATABASE, MessagePublisher, DirectRoutes],
    };
  }
}
