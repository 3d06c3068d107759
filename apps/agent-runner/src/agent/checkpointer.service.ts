import type { Database } from '@caravel/db';
import type { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { DATABASE } from '@caravel/platform';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AgentKitLoader } from './agent-kit.loader.js';

/**
 * LangGraph's PostgreSQL checkpointer on the platform's own database (PostgreSQL, or PGlite
 * through its pg-wire socket), so a run's every step survives the runner. Opened by the first
 * run, not at start.
 */
@Injectable()
export class CheckpointerService implements OnModuleDestroy {
  private saver: Promise<PostgresSaver> | undefined;

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(AgentKitLoader) private readonly kit: AgentKitLoader,
  ) {}

  get(): Promise<PostgresSaver> {
    this.saver ??= this.kit.get().then(
      async ({ PostgresSaver }) => {
        const saver = PostgresSaver.fromConnString(await this.database.connectionString());
        await saver.setup();
        return saver;
      },
      (error: unknown) => {
        // The kit did not load: the next run tries again (nothing was opened).
        this.saver = undefined;
        throw error;
      },
    );
    return this.saver;
  }

  async onModuleDestroy(): Promise<void> {
    const saver = this.saver;
    this.saver = undefined;
    const opened = await saver?.catch(() => undefined);
    await opened?.end();
  }
}
