import { TcpProxy, testEnvironment } from '@caravel/testing';
import pg from 'pg';

/**
 * A fresh database of the run on the machine's PostgreSQL (127.0.0.1:5432, trust), reached
 * through a TCP proxy the run controls: `cut()` refuses new connections and drops the open ones,
 * as a PostgreSQL that went away does; `restore()` lets them through again.
 */
export class ChaosDatabase {
  private constructor(
    readonly name: string,
    private readonly admin: pg.Client,
    private readonly proxy: TcpProxy,
  ) {}

  static async create(name: string): Promise<ChaosDatabase> {
    const admin = new pg.Client({ connectionString: testEnvironment.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const direct = new URL(testEnvironment.TEST_DATABASE_URL);
    const proxy = await TcpProxy.open({ host: direct.hostname, port: Number(direct.port || 5432) });
    return new ChaosDatabase(name, admin, proxy);
  }

  /** The URL the services get: through the proxy. */
  get url(): string {
    const url = new URL(testEnvironment.TEST_DATABASE_URL);
    url.port = String(this.proxy.port);
    url.pathname = `/${this.name}`;
    return url.toString();
  }

  /** The URL the chaos suite itself reads through: straight to PostgreSQL, never cut. */
  get directUrl(): string {
    const url = new URL(testEnvironment.TEST_DATABASE_URL);
    url.pathname = `/${this.name}`;
    return url.toString();
  }

  cut(): Promise<void> {
    return this.proxy.stop();
  }

  restore(): Promise<void> {
    return this.proxy.start();
  }

  async drop(): Promise<void> {
    await this.proxy.stop();
    await this.admin.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
    await this.admin.end();
  }
}
