import type { Database } from '@caravel/db';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { DATABASE } from '@caravel/platform';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';

/**
 * LangGraph's PostgreSQL checkpointer on the platform's own database (PostgreSQL, or PGlite
 * through its pg-wire socket), so a run's every step survives the runner.
 */
@Injectable()
export class CheckpointerService implements OnModuleDestroy {
  private saver: Promise<PostgresSaver> | undefined;

  constructor(@Inject(DATABASE) private readonly database: Database) {}

  get(): Promise<PostgresSaver> {
    this.saver ??= (async () => {
      const saver = PostgresSaver.fromConnString(await this.database.connectionString());
      await saver.setup();
      return saver;
    })();
    return this.saver;
  }

  async onModuleDestroy(): Promise<void> {
    const saver = this.saver;
    this.saver = undefined;
    if (saver) await (await saver).end();
  }
}
