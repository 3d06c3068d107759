import { ConnectTenantRepository, DeliveryRepository, ThreadRepository } from '@caravel/db';
import { IntegrationAdapters, integrationsConfigOf } from '@caravel/integrations';
import { repositoryProvider } from '@caravel/platform';
import { Module, type DynamicModule } from '@nestjs/common';
import { ConnectController } from './handlers/connect.controller.js';
import { WebhooksController } from './handlers/webhooks.controller.js';
import { RawBodyInstaller } from './http/raw-body.middleware.js';
import { CLOCK, systemClock, type Clock } from './ingress.clock.js';
import {
  INGRESS_SETTINGS,
  ingressSettingsSchema,
  type IngressSettings,
} from './ingress.settings.js';
import { ConfluenceConnectService } from './services/confluence-connect.service.js';
import { DeliveryRetentionService } from './services/delivery-retention.service.js';
import { JiraReadBackService } from './services/jira-read-back.service.js';
import { SourceWebhooksService } from './services/source-webhooks.service.js';
import { TriggerIntakeService } from './services/trigger-intake.service.js';

/**
 * HTTP webhooks: verify on raw bytes, dedupe, derive the thread id, publish `trigger.received`.
 * The bare class has no secrets configured, so every route fails closed (401);
 * {@link IngressModule.register} supplies the parsed settings (dynamic providers override the
 * static ones of the same token).
 */
@Module({
  controllers: [WebhooksController, ConnectController],
  providers: [
    { provide: INGRESS_SETTINGS, useValue: ingressSettingsSchema.parse({}) },
    { provide: CLOCK, useValue: systemClock },
    {
      // Built from whichever settings are registered (register()'s replace the defaults).
      provide: IntegrationAdapters,
      inject: [INGRESS_SETTINGS],
      useFactory: (settings: IngressSettings) =>
        new IntegrationAdapters(integrationsConfigOf(settings)),
    },
    RawBodyInstaller,
    SourceWebhooksService,
    TriggerIntakeService,
    ConfluenceConnectService,
    JiraReadBackService,
    DeliveryRetentionService,
    repositoryProvider(DeliveryRepository),
    repositoryProvider(ConnectTenantRepository),
    repositoryProvider(ThreadRepository),
  ],
})
export class IngressModule {
  static register(settings: IngressSettings, clock: Clock = systemClock): DynamicModule {
    return {
      module: IngressModule,
      providers: [
        { provide: INGRESS_SETTINGS, useValue: settings },
        { provide: CLOCK, useValue: clock },
      ],
    };
  }
}
