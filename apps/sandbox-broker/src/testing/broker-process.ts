import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** The broker's entry point and the hooks that run it from its sources (no build needed). */
const MAIN = new URL('../main.ts', import.meta.url);
const HOOKS = new URL('./source-hooks.mjs', import.meta.url);
const REGISTER = `data:text/javascript,import { register } from 'node:module'; register(${JSON.stringify(HOOKS.href)});`;
/** Starting from sources transpiles every module first: allow it time on a busy machine. */
const START_TIMEOUT_MS = 90_000;

/**
 * The sandbox broker as a separate `node` process (`main.ts`, configured by its environment as
 * in production), to be killed for real. It leads its own process group, so what it started
 * (sessions, git) can be ended with it once the test is done.
 */
export class BrokerProcess {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly exited: Promise<unknown>,
  ) {
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-20_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /** Starts a broker with `env` (over a minimal inherited one) and waits until it listens. */
  static async start(env: Record<string, string>): Promise<BrokerProcess> {
    const child = spawn(
      process.execPath,
      ['--conditions=@caravel/source', '--import', REGISTER, MAIN.pathname],
      {
        // Where the OS finds programs (git, sh) and git its home: not configuration.
        // eslint-disable-next-line no-restricted-syntax
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const broker = new BrokerProcess(child, once(child, 'exit'));
    await broker.listening();
    return broker;
  }

  /** SIGKILL to the broker alone (its children live on, as they would); resolves once it died. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Ends whatever is left of the broker's process group (the broker, its sessions, its git). */
  endGroup(): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  }

  private async listening(): Promise<void> {
    const { stdout } = this.child;
    if (!stdout) throw new Error('the broker process has no stdout');
    let timer: NodeJS.Timeout | undefined;
    const listening = new Promise<void>((resolve) => {
      const check = () => {
        if (this.output.includes('sandbox-broker listening on')) resolve();
      };
      stdout.on('data', check);
    });
    const failed = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the broker did not start in time:\n${this.output}`)),
        START_TIMEOUT_MS,
      );
      void this.exited.then(() => reject(new Error(`the broker exited at start:\n${this.output}`)));
    });
    try {
      await Promise.race([listening, failed]);
    } finally {
      clearTimeout(timer);
    }
  }
}
