import { freePort, ServiceProcess } from '../../../e2e/support/processes.js';
import { expectReady } from '../../../e2e/support/walking-skeleton.js';

/** How many processes of which built service (`apps/<name>/dist/main.js`). */
export type ServiceCounts = Readonly<Record<string, number>>;

/**
 * The built services as separate OS processes on the run's nats-server and database, with the
 * README's distributed environment (`NATS_URL`, `DATABASE_URL`, a bus namespace).
 */
export class ChaosPlatform {
  private readonly processes: ServiceProcess[] = [];
  /** Killed processes, kept for their logs. */
  private readonly graveyard: ServiceProcess[] = [];

  private constructor(private readonly env: Record<string, string>) {}

  static async start(counts: ServiceCounts, env: Record<string, string>): Promise<ChaosPlatform> {
    const platform = new ChaosPlatform(env);
    for (const [name, count] of Object.entries(counts)) {
      for (let i = 0; i < count; i += 1) await platform.add(name, false);
    }
    try {
      await Promise.all(platform.processes.map((p) => platform.ready(p)));
    } catch (error) {
      await platform.stop();
      throw error;
    }
    return platform;
  }

  /** Base URLs of every live process of `name`, in start order. */
  urls(name: string): string[] {
    return this.processes.filter((p) => p.name === name).map((p) => p.url);
  }

  url(name: string): string {
    const [url] = this.urls(name);
    if (!url) throw new Error(`no ${name} process`);
    return url;
  }

  /**
   * `kill -9` of the `nth` live process of `name` (the first by default); a fresh one takes its
   * place once ready, as a supervisor restarts a crashed pod.
   */
  async killAndReplace(name: string, nth = 0): Promise<void> {
    const victim = this.processes.filter((p) => p.name === name)[nth];
    if (!victim) throw new Error(`no ${name} process #${nth}`);
    await victim.kill();
    this.processes.splice(this.processes.indexOf(victim), 1);
    this.graveyard.push(victim);
    await this.add(name, true);
  }

  /** The services that do not answer `/health/live` (crashed or hung). */
  async unresponsive(): Promise<string[]> {
    return (await this.dead()).map((p) => `${p.name} :${p.port}`);
  }

  /**
   * Starts a fresh process for each one that no longer answers `/health/live`, as a supervisor
   * would; resolves with what was replaced (`name :port`).
   */
  async reviveDead(): Promise<string[]> {
    const dead = await this.dead();
    for (const victim of dead) {
      await victim.kill();
      this.processes.splice(this.processes.indexOf(victim), 1);
      this.graveyard.push(victim);
      await this.add(victim.name, true);
    }
    return dead.map((p) => `${p.name} :${p.port}`);
  }

  private async dead(): Promise<ServiceProcess[]> {
    const live = await Promise.all(
      this.processes.map((p) =>
        fetch(`${p.url}/health/live`, { signal: AbortSignal.timeout(5_000) })
          .then((r) => r.status === 200)
          .catch(() => false),
      ),
    );
    return this.processes.filter((_, i) => !live[i]);
  }

  /** What every process logged (killed ones too), for a failure's evidence. */
  logs(): string {
    return [...this.graveyard, ...this.processes]
      .map((p) => `--- ${p.name} :${p.port}\n${p.log}`)
      .join('\n');
  }

  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop()));
  }

  private async add(name: string, waitReady: boolean): Promise<void> {
    const service = new ServiceProcess(name, await freePort(), this.env);
    this.processes.push(service);
    if (waitReady) await this.ready(service);
  }

  private async ready(service: ServiceProcess): Promise<void> {
    await expectReady(service.url).catch((error: unknown) => {
      throw new Error(`${service.name} never became ready: ${String(error)}\n${service.log}`);
    });
  }
}
