import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy a test can take down and bring back on the same port, to play a
 * dependency outage: `stop()` refuses new connections and cuts the open ones, as a server that
 * went away does; `start()` listens again.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private listenPort = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    private readonly host = '127.0.0.1',
  ) {}

  /** A proxy to `target`, listening on a free port. */
  static async open(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await proxy.start();
    return proxy;
  }

  get port(): number {
    return this.listenPort;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => this.pipe(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listenPort, this.host, () => resolve());
    });
    const address = server.address();
    if (address && typeof address === 'object') this.listenPort = address.port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await closed;
  }

  private pipe(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
