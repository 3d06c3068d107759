import { checkCheckpointerTables, type Database } from '@caravel/db';
import type { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { DATABASE, RUNTIME, type PlatformRuntime } from '@caravel/platform';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AgentKitLoader } from './agent-kit.loader.js';

/**
 * LangGraph's PostgreSQL checkpointer on the platform's own database (PostgreSQL, or PGlite
 * through its pg-wire socket), so a run's every step survives the runner. Opened by the first
 * run, not at start. Its tables are made by its `setup()` (DDL) where this process owns the
 * schema; a runner on its own role (`DATABASE_MIGRATE=false`) only checks they are there, since
 * `caravel db migrate` made them as the owner.
 */
@Injectable()
export class CheckpointerService implements OnModuleDestroy {
  private saver: Promise<PostgresSaver> | undefined;

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(AgentKitLoader) private readonly kit: AgentKitLoader,
    @Inject(RUNTIME) private readonly runtime: Pick<PlatformRuntime, 'ownsSchema'>,
  ) {}

  get(): Promise<PostgresSaver> {
    this.saver ??= this.open().catch((error: unknown) => {
      // Nothing stays open: the next run tries again (after `caravel db migrate`, say).
      this.saver = undefined;
      throw error;
    });
    return this.saver;
  }

  private async open(): Promise<PostgresSaver> {
    const { PostgresSaver } = await this.kit.get();
    if (!this.runtime.ownsSchema) await checkCheckpointerTables(this.database);
    const saver = PostgresSaver.fromConnString(await this.database.connectionString());
    if (!this.runtime.ownsSchema) return saver;
    try {
      await saver.setup();
    } catch (error) {
      await saver.end().catch(() => undefined);
      throw error;
    }
    return saver;
  }

  async onModuleDestroy(): Promise<void> {
    const saver = this.saver;
    this.saver = undefined;
    const opened = await saver?.catch(() => undefined);
    await opened?.end();
  }
}
