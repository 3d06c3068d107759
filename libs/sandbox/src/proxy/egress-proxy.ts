import { chmod, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isAppError } from '@caravel/errors';
import {
  decideRequest,
  decideTunnel,
  hostName,
  type EgressDecision,
  type EgressPolicyOptions,
} from './egress-policy.js';
import { answerText, forwardRequest } from './forward-request.js';
import type { TokenSource } from './token-source.js';

/** Settings of one sandbox's egress proxy. */
export interface EgressProxyOptions extends EgressPolicyOptions {
  readonly tokenSource: TokenSource;
  /**
   * Where an allowlisted host is really reached (`host` -> base URL), like a DNS override.
   * For mirrors, and for tests that serve a "registry" on 127.0.0.1.
   */
  readonly upstreamOverrides?: Readonly<Record<string, string>>;
  /** Told about every refusal and upstream failure (never about credentials). */
  readonly onEvent?: (event: EgressEvent) => void;
}

/** What the proxy reports about a request it handled. */
export interface EgressEvent {
  readonly kind: 'allowed' | 'denied' | 'credential-failed';
  readonly method: string;
  readonly host: string;
  readonly detail?: string;
}

/** Where a request goes, and its Authorization (`null`: none, even the sandbox's own). */
interface Routed {
  readonly url: URL;
  readonly authorization: string | null | undefined;
}

/** Where to listen: a Unix socket (what a sandbox gets) or a TCP port on 127.0.0.1. */
export type EgressListen = { readonly socketPath: string } | { readonly port: number };

function requestTarget(incoming: IncomingMessage): { host: string; path: string } | undefined {
  const raw = incoming.url ?? '/';
  if (/^https?:\/\//i.test(raw)) {
    const url = new URL(raw);
    return { host: url.host, path: `${url.pathname}${url.search}` };
  }
  const host = incoming.headers.host;
  return host ? { host, path: raw } : undefined;
}

/**
 * The host-side forward proxy a sandbox uses as its only way out. Plain HTTP requests to the
 * configured GitHub hosts get the real credential injected (Basic `x-access-token` for git,
 * Bearer for the API) after any Authorization the sandbox sent is dropped (with
 * `publicGitHubReads`, other repositories' fetches go with no Authorization at all); allowlisted
 * hosts pass through untouched, and `CONNECT` tunnels (HTTPS, uninspected) are opened to them only.
 * Everything else is answered 403 with a text the agent can act on.
 */
export class EgressProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket | Duplex>();
  private socketPath: string | undefined;

  constructor(private readonly options: EgressProxyOptions) {
    this.server = createServer((incoming, response) => void this.onRequest(incoming, response));
    this.server.on('connect', (incoming: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.onConnect(incoming, socket, head),
    );
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /**
   * Starts listening. A Unix socket is made connectable by any uid (the sandbox user is an
   * unprivileged host uid); guard it with the permissions of its directory instead.
   */
  async listen(where: EgressListen): Promise<string> {
    if ('socketPath' in where) {
      await rm(where.socketPath, { force: true });
      await new Promise<void>((resolve, reject) => {
        this.server.once('error', reject);
        this.server.listen(where.socketPath, resolve);
      });
      await chmod(where.socketPath, 0o666);
      this.socketPath = where.socketPath;
      return where.socketPath;
    }
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(where.port, '127.0.0.1', resolve);
    });
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Stops listening and drops open connections and tunnels. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.socketPath) await rm(this.socketPath, { force: true });
  }

  private async onRequest(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = incoming.method ?? 'GET';
    const target = requestTarget(incoming);
    if (!target) {
      answerText(response, 400, 'caravel egress proxy: the request names no host.\n');
      return;
    }
    const decision = decideRequest(this.options, target.host, target.path, method);
    if (decision.kind === 'deny') {
      this.report({
        kind: 'denied',
        method,
        host: hostName(target.host),
        detail: decision.message,
      });
      incoming.resume();
      answerText(response, 403, decision.message);
      return;
    }
    let routed: Routed;
    try {
      routed = await this.route(decision, target);
    } catch (error) {
      const reason = isAppError(error) ? error.message : 'no credential available';
      this.report({
        kind: 'credential-failed',
        method,
        host: hostName(target.host),
        detail: reason,
      });
      incoming.resume();
      answerText(
        response,
        502,
        `caravel egress proxy: could not authorize the request: ${reason}\n`,
      );
      return;
    }
    this.report({ kind: 'allowed', method, host: hostName(target.host) });
    forwardRequest(incoming, response, routed.url, routed.authorization);
  }

  private async route(
    decision: Exclude<EgressDecision, { kind: 'deny' }>,
    target: { host: string; path: string },
  ): Promise<Routed> {
    const { github } = this.options;
    if (decision.kind === 'pass-through') {
      const base =
        this.options.upstreamOverrides?.[hostName(target.host)] ?? `http://${target.host}`;
      return { url: joinUrl(base, target.path), authorization: undefined };
    }
    if (decision.kind === 'github-public') {
      // Anonymous: no credential is fetched, and whatever the sandbox sent is dropped.
      const base = github.gitUpstream ?? `https://${github.gitHost}`;
      return { url: joinUrl(base, target.path), authorization: null };
    }
    const { token } = await this.options.tokenSource.getToken({ repository: decision.repository });
    if (decision.kind === 'github-git') {
      const base = github.gitUpstream ?? `https://${github.gitHost}`;
      const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
      return { url: joinUrl(base, target.path), authorization: `Basic ${basic}` };
    }
    const base = github.apiUpstream ?? `https://${github.apiHost}`;
    return { url: joinUrl(base, target.path), authorization: `Bearer ${token}` };
  }

  private onConnect(incoming: IncomingMessage, client: Duplex, head: Buffer): void {
    const authority = incoming.url ?? '';
    const decision = decideTunnel(this.options, authority);
    const host = hostName(authority);
    if (decision.kind !== 'pass-through') {
      const message = decision.kind === 'deny' ? decision.message : 'refused\n';
      this.report({ kind: 'denied', method: 'CONNECT', host, detail: message });
      client.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain; charset=utf-8\r\n` +
          `content-length: ${Buffer.byteLength(message)}\r\nconnection: close\r\n\r\n${message}`,
      );
      return;
    }
    const override = this.options.upstreamOverrides?.[host];
    const address = override ? new URL(override) : new URL(`https://${authority}`);
    const upstream = connect(Number(address.port || 443), address.hostname);
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    upstream.once('connect', () => {
      this.report({ kind: 'allowed', method: 'CONNECT', host });
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  }

  private report(event: EgressEvent): void {
    this.options.onEvent?.(event);
  }
}

function joinUrl(base: string, path: string): URL {
  const url = new URL(base);
  const prefix = url.pathname.replace(/\/$/, '');
  return new URL(`${url.protocol}//${url.host}${prefix}${path}`);
}
