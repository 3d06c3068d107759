import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { SandboxEgressGateway } from '../../proxy/egress-proxy-pool.js';
import { EGRESS_SOCKET_NAME } from '../../proxy/sandbox-egress.js';
import type { SandboxLogger } from '../../sandbox.types.js';

/** Where the relay listens: the port sandbox pods' proxy URL names. */
export interface EgressRelayListen {
  readonly port: number;
  /** Default: every interface (pods reach the broker through its Service). */
  readonly host?: string;
}

/** Which sandbox owns a pod address, as the provider learns it when a pod runs. */
export interface PodAddressBook {
  register(address: string, sandboxId: string): void;
  unregister(sandboxId: string): void;
}

/** `::ffff:10.1.2.3` and `10.1.2.3` are one pod. */
function normalise(address: string): string {
  return address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
}

/**
 * How sandbox pods reach the broker's credential proxy. bwrap and docker sandboxes get their
 * proxy as a socket bound into the sandbox; a pod is another machine, so the broker listens on
 * one TCP port and tells a connection's sandbox by its source address: the pod IP the provider
 * registered when the pod started running. The connection is then piped to that sandbox's own
 * proxy (opened for it, closed with the last connection), which adds the credential of the
 * sandbox's repository and nothing else. A connection from an address no running sandbox pod has
 * is closed unread: nothing else in the cluster gets a credential through here. Pod addresses are
 * the cluster network's (CNI) to keep honest; the chart's NetworkPolicy lets only sandbox pods in.
 */
export class KubernetesEgressRelay implements PodAddressBook {
  private readonly sandboxes = new Map<string, string>();
  private readonly addresses = new Map<string, string>();
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  constructor(
    private readonly gateway: SandboxEgressGateway,
    private readonly logger?: SandboxLogger,
  ) {
    this.server = createServer((socket) => this.relay(socket));
  }

  /** Starts listening; resolves with the port (0 picks one). */
  listen(where: EgressRelayListen): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(where.port, where.host ?? '0.0.0.0', () => {
        this.server.off('error', reject);
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : where.port);
      });
    });
  }

  register(address: string, sandboxId: string): void {
    const pod = normalise(address);
    const previous = this.addresses.get(sandboxId);
    if (previous !== undefined && previous !== pod) this.sandboxes.delete(previous);
    this.sandboxes.set(pod, sandboxId);
    this.addresses.set(sandboxId, pod);
  }

  unregister(sandboxId: string): void {
    const pod = this.addresses.get(sandboxId);
    if (pod === undefined) return;
    this.addresses.delete(sandboxId);
    if (this.sandboxes.get(pod) === sandboxId) this.sandboxes.delete(pod);
  }

  /** The sandbox whose pod has `address`, if any. */
  sandboxAt(address: string): string | undefined {
    return this.sandboxes.get(normalise(address));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    const sandboxId = this.sandboxAt(socket.remoteAddress ?? '');
    if (sandboxId === undefined) {
      this.logger?.warn(`egress relay: refused ${socket.remoteAddress ?? '?'} (no sandbox pod)`);
      socket.destroy();
      return;
    }
    socket.pause();
    void this.gateway.open(sandboxId).then(
      (lease) => {
        const upstream = connect(join(this.gateway.socketDir(sandboxId), EGRESS_SOCKET_NAME));
        const end = (): void => {
          socket.destroy();
          upstream.destroy();
          void lease.close();
        };
        upstream.once('close', end);
        socket.once('close', end);
        upstream.once('error', end);
        socket.once('error', end);
        upstream.once('connect', () => {
          socket.pipe(upstream);
          upstream.pipe(socket);
          socket.resume();
        });
      },
      (error: unknown) => {
        this.logger?.warn(`egress relay: no proxy for sandbox ${sandboxId}: ${String(error)}`);
        socket.destroy();
      },
    );
  }
}
