import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import { pipeline } from 'node:stream';
import { docker, dockerEnvironment } from './compose-docker.js';
import type { Platform } from './platform.js';
import { repoRoot } from './processes.js';

/** docker-compose.yml with the e2e override on top (paths from the repository root). */
const FILES = ['-f', 'docker-compose.yml', '-f', 'infra/docker/docker-compose.e2e.yml'];

/** How long `up --wait` may take once the images are built: the services' health, not the build. */
const WAIT_SECONDS = 600;

/** What the override reads (see infra/docker/docker-compose.e2e.yml). */
export type ComposeE2eVariables = {
  /** The fake GitHub as the containers reach it: `http://host.docker.internal:<port>`. */
  readonly CARAVEL_E2E_GITHUB_URL: string;
  readonly CARAVEL_E2E_GITHUB_APP_ID: string;
  /** The App's PEM with `\n` for each newline, as the services' config reads it. */
  readonly CARAVEL_E2E_GITHUB_APP_PRIVATE_KEY: string;
  readonly CARAVEL_E2E_WEBHOOK_SECRET: string;
  /** The scripted model's file on this machine, mounted into the runner. */
  readonly CARAVEL_E2E_SCRIPT: string;
};

/** The last `lines` lines of a long output (an image build's), for an error message. */
const tail = (text: string, lines = 80): string => text.trim().split('\n').slice(-lines).join('\n');

/**
 * The distributed platform as `docker compose up` runs it, under a project of its own (its own
 * containers, network and volumes), images tagged `e2e`: the ingress and the dashboard API on
 * random ports of 127.0.0.1, nothing else published. `close()` removes it all, volumes included.
 */
export class ComposePlatform implements Platform {
  private urls = { ingress: '', api: '' };

  private constructor(
    readonly project: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /**
   * Builds the images and starts the project; resolves once every service is healthy. A project
   * that does not come up is taken down again, its logs in the error.
   */
  static async up(variables: ComposeE2eVariables): Promise<ComposePlatform> {
    const project = `caravel-e2e-${randomBytes(4).toString('hex')}`;
    const env = dockerEnvironment({ ...variables, CARAVEL_TAG: 'e2e', LOG_LEVEL: 'info' });
    const platform = new ComposePlatform(project, env);
    try {
      await platform.start();
      return platform;
    } catch (error) {
      const message = `${error instanceof Error ? error.message : String(error)}\n${platform.logs()}`;
      await platform.close().catch(() => undefined);
      throw new Error(message, { cause: error });
    }
  }

  get ingressUrl(): string {
    return this.urls.ingress;
  }

  get apiUrl(): string {
    return this.urls.api;
  }

  private compose(...args: string[]) {
    return docker(['compose', '-p', this.project, ...FILES, ...args], this.env);
  }

  private async start(): Promise<void> {
    const up = await this.compose(
      'up',
      '--build',
      '-d',
      '--wait',
      '--wait-timeout',
      `${WAIT_SECONDS}`,
    );
    if (up.status !== 0)
      throw new Error(`docker compose up failed (${up.status}):\n${tail(up.stderr)}`);
    this.urls = {
      ingress: await this.published('ingress', 3001),
      api: await this.published('dashboard', 3007),
    };
  }

  /** `http://127.0.0.1:<random>`: where compose published a service's port. */
  private async published(service: string, port: number): Promise<string> {
    const answer = await this.compose('port', service, String(port));
    if (answer.status !== 0)
      throw new Error(`${service}:${port} is not published: ${answer.stderr}`);
    return `http://${answer.stdout.trim()}`;
  }

  /**
   * Every container's state and log (`docker compose ps`, `logs`). Synchronous, as `withLogs`
   * wants: it only runs once a check failed, when nothing else needs the event loop.
   */
  logs(): string {
    const run = (...args: string[]) =>
      spawnSync('docker', ['compose', '-p', this.project, ...FILES, ...args], {
        cwd: repoRoot,
        env: this.env,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        timeout: 60_000,
      });
    const ps = run('ps', '--all');
    // The last 200 lines of each container: where a run stopped, whichever service it was in.
    const logs = run('logs', '--no-color', '--timestamps', '--tail', '200');
    return `--- docker compose ps\n${ps.stdout}${ps.stderr}\n--- docker compose logs\n${logs.stdout}${logs.stderr}`;
  }

  /** `docker compose down -v`: containers, network and volumes gone (the images stay cached). */
  async close(): Promise<void> {
    const down = await this.compose('down', '-v', '--remove-orphans', '--timeout', '30');
    if (down.status !== 0) throw new Error(`docker compose down failed: ${down.stderr}`);
  }
}

/** A TCP relay listening on every interface of this machine. */
export interface HostRelay {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Pipes every connection to `port` on 127.0.0.1, from a port on every interface: the loopback
 * fakes answer only on 127.0.0.1, and containers reach this machine as `host.docker.internal`
 * (the `host-gateway` address: the Docker bridge's, not the loopback).
 */
export async function openHostRelay(port: number): Promise<HostRelay> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    // Either side ending or failing ends both.
    pipeline(client, upstream, client, () => {
      sockets.delete(client);
      sockets.delete(upstream);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '0.0.0.0', () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
