import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../../e2e/support/processes.js';
import { eventually } from '../../../e2e/support/walking-skeleton.js';

/** Where Debian puts nats-server (`apt-get install nats-server`). */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * A nats-server of the run's own, with JetStream, on loopback and a free port, its store in a
 * directory of the run. It can be killed outright (SIGKILL) and started again on the same port
 * and store, as an operator restarts a crashed server.
 */
export class NatsServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private output = '';

  private constructor(
    readonly port: number,
    private readonly storeDir: string,
    private readonly env: Record<string, string>,
  ) {}

  static async start(storeDir: string, env: Record<string, string>): Promise<NatsServer> {
    const server = new NatsServer(await freePort(), storeDir, env);
    await server.launch();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get log(): string {
    return this.output;
  }

  /** `kill -9`: no shutdown, whatever was not written to the store is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await this.exited;
  }

  /** Starts the server again on the same port and store; resolves once JetStream answers. */
  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await this.exited;
    clearTimeout(timer);
  }

  private async launch(): Promise<void> {
    const args = ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.storeDir];
    const child = spawn('nats-server', args, {
      env: { PATH: SYSTEM_PATH, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('error', (error) => (this.output += `spawn failed: ${error.message}\n`));
    await eventually(() => this.jetStreamAnswers(), 20_000).catch((error: unknown) => {
      throw new Error(`nats-server never answered (${String(error)}):\n${this.output}`);
    });
  }

  private async jetStreamAnswers(): Promise<true | undefined> {
    const nc = await connect({ servers: this.url, reconnect: false, timeout: 1_000 });
    try {
      await (await jetstreamManager(nc)).getAccountInfo();
      return true;
    } finally {
      await nc.close();
    }
  }
}
