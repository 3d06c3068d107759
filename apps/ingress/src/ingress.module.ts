import { CLOCK, systemClock, type Clock } from '@caravel/config';
import {
  ConnectTenantRepository,
  type Database,
  DeliveryRepository,
  SlackMessageRepository,
  ThreadRepository,
} from '@caravel/db';
import { IntegrationAdapters } from '@caravel/integrations';
import { DATABASE, repositoryProvider } from '@caravel/platform';
import { Module, type DynamicModule, type FactoryProvider } from '@nestjs/common';
import { ConnectController } from './handlers/connect.controller.js';
import { WebhookRoutes } from './handlers/webhook-routes.js';
import { RawBodyInstaller, WebhookBodyBudget } from './http/raw-body.middleware.js';
import { INGRESS_CONFIG, ingressConfigFrom, type IngressConfig } from './ingress.config.js';
import { ConfluenceConnectService } from './services/confluence-connect.service.js';
import { DeliveryRetentionService } from './services/delivery-retention.service.js';
import { JiraReadBackService } from './services/jira-read-back.service.js';
import { SlackMessageMap } from './services/slack-message-map.js';
import { SourceWebhooksService } from './services/source-webhooks.service.js';
import { SETTLE_GATHER_MS, TriggerIntakeService } from './services/trigger-intake.service.js';

/**
 * A repository whose statements of concurrent requests are group-committed. PGlite runs its
 * statements on this thread, so there they gather for one turn of the event loop to go together.
 * `relaxedCommits`: its commits do not wait for the disk (see `Database.relaxedCommits`).
 */
function groupCommittedProvider<T, O extends object>(
  repository: new (db: Database['db'], options: O & { statementsOnThisThread: boolean }) => T,
  options: O,
  commits: 'durable' | 'relaxed' = 'durable',
): FactoryProvider<T> {
  return {
    provide: repository,
    inject: [DATABASE],
    useFactory: (database: Database) =>
      new repository(commits === 'relaxed' ? database.relaxedCommits() : database.db, {
        ...options,
        statementsOnThisThread: database.kind === 'pglite',
      }),
  };
}

/**
 * HTTP webhooks: verify on raw bytes, dedupe, derive the thread id, publish `trigger.received`.
 * The bare class has no secrets configured, so every route fails closed (401);
 * {@link IngressModule.register} supplies the parsed configuration (dynamic providers override the
 * static ones of the same token).
 */
@Module({
  controllers: [ConnectController],
  providers: [
    { provide: INGRESS_CONFIG, useValue: ingressConfigFrom({}) },
    { provide: CLOCK, useValue: systemClock },
    {
      // Built from whichever configuration is registered (register()'s replaces the default).
      provide: IntegrationAdapters,
      inject: [INGRESS_CONFIG],
      useFactory: (config: IngressConfig) => new IntegrationAdapters(config.integrations),
    },
    WebhookBodyBudget,
    RawBodyInstaller,
    WebhookRoutes,
    SourceWebhooksService,
    TriggerIntakeService,
    ConfluenceConnectService,
    JiraReadBackService,
    DeliveryRetentionService,
    // A request is answered before its claim's settle is done: settles go in batches. A claim
    // lost to a crash of PostgreSQL costs nothing: the bus and dispatch's inbox drop the repeat.
    groupCommittedProvider(DeliveryRepository, { settleGatherMs: SETTLE_GATHER_MS }, 'relaxed'),
    repositoryProvider(ConnectTenantRepository),
    repositoryProvider(ThreadRepository),
    groupCommittedProvider(SlackMessageRepository, {}),
    SlackMessageMap,
  ],
})
export class IngressModule {
  static register(config: IngressConfig, clock: Clock = systemClock): DynamicModule {
    return {
      module: IngressModule,
      providers: [
        { provide: INGRESS_CONFIG, useValue: config },
        { provide: CLOCK, useValue: clock },
      ],
    };
  }
}
