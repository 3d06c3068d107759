import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxEgressGateway } from '../../proxy/egress-proxy-pool.js';
import { EGRESS_SOCKET_NAME } from '../../proxy/sandbox-egress.js';
import { KubernetesEgressRelay } from './kubernetes-egress-relay.js';

/**
 * A gateway whose per-sandbox "proxy" is a Unix socket server that answers each connection with
 * its sandbox's id and then echoes: what reaches it tells which sandbox's proxy took it.
 */
function gateway(root: string) {
  const servers: Server[] = [];
  const events: string[] = [];
  const opened = new Set<string>();
  let closed: () => void = () => undefined;
  /** Resolves at the next lease's close. */
  const nextClose = new Promise<void>((resolve) => (closed = resolve));
  const double: SandboxEgressGateway = {
    socketDir: (sandboxId) => join(root, sandboxId),
    open: async (sandboxId) => {
      events.push(`open ${sandboxId}`);
      if (!opened.has(sandboxId)) {
        opened.add(sandboxId);
        mkdirSync(join(root, sandboxId), { recursive: true });
        const server = createServer((socket) => {
          socket.write(`${sandboxId}:`);
          socket.pipe(socket);
        });
        servers.push(server);
        await new Promise<void>((resolve) =>
          server.listen(join(root, sandboxId, EGRESS_SOCKET_NAME), resolve),
        );
      }
      return {
        close: () => {
          events.push(`close ${sandboxId}`);
          closed();
          return Promise.resolve();
        },
      };
    },
    forget: () => Promise.resolve(),
  };
  const close = () =>
    Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return { double, events, close, nextClose };
}

/** Connects to the relay, sends `text`, and resolves with everything read until the close. */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += String(chunk);
      if (received.endsWith(text)) socket.end();
    });
    socket.once('connect', () => socket.write(text));
    socket.once('close', () => resolve(received));
    socket.once('error', reject);
  });
}

describe('KubernetesEgressRelay', () => {
  const cleanups: (() => Promise<unknown> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function started() {
    const root = mkdtempSync(join(tmpdir(), 'k8s-relay-'));
    const proxies = gateway(root);
    const relay = new KubernetesEgressRelay(proxies.double);
    const port = await relay.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(
      () => rmSync(root, { recursive: true, force: true }),
      proxies.close,
      () => relay.close(),
    );
    return { relay, port, events: proxies.events, nextClose: proxies.nextClose };
  }

  it("pipes a registered pod's connection to its own sandbox's proxy, and lets go of it after", async () => {
    const { relay, port, events } = await started();
    relay.register('::ffff:127.0.0.1', 'sandbox-a');

    expect(await exchange(port, 'CONNECT github.com:443')).toBe('sandbox-a:CONNECT github.com:443');
    expect(events).toEqual(['open sandbox-a', 'close sandbox-a']);
  });

  it('follows a pod address to the sandbox that has it now', async () => {
    const { relay, port } = await started();
    relay.register('127.0.0.1', 'sandbox-a');
    relay.register('127.0.0.1', 'sandbox-b');
    expect(relay.sandboxAt('127.0.0.1')).toBe('sandbox-b');
    expect(await exchange(port, 'x')).toBe('sandbox-b:x');
    relay.unregister('sandbox-a');
    expect(relay.sandboxAt('127.0.0.1')).toBe('sandbox-b');
  });

  it('closes, unread, a connection from an address no sandbox pod has', async () => {
    const { relay, port, events } = await started();
    expect(await exchange(port, 'GET / HTTP/1.1')).toBe('');
    relay.register('127.0.0.1', 'sandbox-a');
    relay.unregister('sandbox-a');
    expect(await exchange(port, 'GET / HTTP/1.1')).toBe('');
    expect(events).toEqual([]);
  });
});
