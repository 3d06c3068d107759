import { busConsumerBacklog, databasePoolConnections } from '@caravel/metrics';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { PlatformRuntime } from './runtime.js';
import { RUNTIME } from './tokens.js';

/**
 * The process's bus and database on `/metrics`, read when scraped: each durable consumer's
 * backlog (`caravel_bus_consumer_backlog_messages`) and the PostgreSQL pool
 * (`caravel_database_pool_connections`; PGlite has no pool and reports none).
 */
@Injectable()
export class RuntimeMetricsService implements OnModuleInit, OnModuleDestroy {
  private readonly removals: (() => void)[] = [];

  constructor(@Inject(RUNTIME) private readonly runtime: PlatformRuntime) {}

  onModuleInit(): void {
    const { bus, database } = this.runtime;
    this.removals.push(
      busConsumerBacklog.addSource(async () =>
        (await bus.backlog()).flatMap(({ consumer, waiting, inHandlers }) => [
          { labels: { consumer, state: 'waiting' }, value: waiting },
          { labels: { consumer, state: 'in_handlers' }, value: inHandlers },
        ]),
      ),
      // A function that throws is left out of the scrape like one that rejects.
      databasePoolConnections.addSource(() => {
        const pool = database.pool();
        return Promise.resolve(
          pool
            ? [
                { labels: { state: 'open' }, value: pool.open },
                { labels: { state: 'idle' }, value: pool.idle },
                { labels: { state: 'waiting' }, value: pool.waiting },
              ]
            : [],
        );
      }),
    );
  }

  onModuleDestroy(): void {
    for (const remove of this.removals.splice(0)) remove();
  }
}
