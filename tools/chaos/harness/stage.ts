import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ChaosRun } from './chaos-run.js';
import type { NatsServer } from './nats-server.js';
import { Observer } from './observer.js';
import { ChaosPlatform, type ServiceCounts } from './platform.js';
import { ChaosDatabase } from './postgres.js';

/**
 * One platform of the chaos run: its own database (behind the proxy), its own bus namespace on
 * the run's nats-server, the services as processes, and the suite's observer of both.
 */
export class Stage {
  private constructor(
    readonly namespace: string,
    readonly database: ChaosDatabase,
    readonly platform: ChaosPlatform,
    readonly observer: Observer,
  ) {}

  static async start(
    run: ChaosRun,
    nats: Pick<NatsServer, 'url'>,
    part: string,
    services: ServiceCounts,
    env: Record<string, string>,
  ): Promise<Stage> {
    // The part keeps the platforms apart on the server (the run's own, or a shared one when the
    // part carries the run's id).
    const namespace = part;
    const database = await ChaosDatabase.create(run.databaseName(part));
    let platform: ChaosPlatform | undefined;
    try {
      platform = await ChaosPlatform.start(services, {
        ...run.marker,
        NATS_URL: nats.url,
        DATABASE_URL: database.url,
        BUS_NAMESPACE: namespace,
        LOG_LEVEL: 'warn',
        SHUTDOWN_GRACE_MS: '5000',
        ...env,
      });
      const observer = await Observer.open(database.directUrl, nats.url, namespace);
      return new Stage(namespace, database, platform, observer);
    } catch (error) {
      await platform?.stop();
      await database.drop();
      throw error;
    }
  }

  /** Stops everything; the services' logs are kept in `logFile` (the evidence of a finding). */
  async stop(logFile: string): Promise<void> {
    await this.observer.close().catch(() => undefined);
    await this.platform.stop();
    await mkdir(dirname(logFile), { recursive: true });
    await writeFile(logFile, this.platform.logs());
    await this.database.drop();
  }
}
