import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxErrorReason } from '../sandbox.errors.js';
import { EgressProxyPool } from './egress-proxy-pool.js';
import type { TokenScope, TokenSource } from './token-source.js';

/** A plain-HTTP proxy request through a Unix socket: the status and the body. */
function viaSocket(socketPath: string, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: url, headers: { host: new URL(url).host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('EgressProxyPool', () => {
  let dir: string;
  let pool: EgressProxyPool;
  const asked: TokenScope[] = [];
  const tokenSource = (repository: string): TokenSource => ({
    getToken: (scope) => {
      asked.push(scope);
      expect(scope.repository).toBe(repository);
      return Promise.resolve({ token: 'real-token', expiresAt: new Date(Date.now() + 60_000) });
    },
  });

  beforeEach(async () => {
    asked.length = 0;
    dir = await mkdtemp(join(tmpdir(), 'caravel-pool-'));
    pool = new EgressProxyPool({
      dir,
      // Nothing listens on port 9: a credentialed request fails upstream after asking the token.
      github: {
        gitHost: 'github.test',
        apiHost: 'api.github.test',
        gitUpstream: 'http://127.0.0.1:9',
      },
      allowlist: [],
      tokenSource,
    });
  });

  afterEach(async () => {
    await pool.closeAll();
    await rm(dir, { recursive: true, force: true });
  });

  const socket = (id: string) => join(pool.socketDir(id), 'egress.sock');
  const gitUrl = (repo: string) => `http://github.test/${repo}.git/info/refs`;

  it('answers on the sandbox socket while a lease is held, and stops with the last one', async () => {
    const first = await pool.open('sbx-a');
    const second = await pool.open('sbx-a');
    const denied = await viaSocket(socket('sbx-a'), 'http://example.org/');
    expect(denied.status).toBe(403);
    expect(denied.body).toContain('requests to example.org are blocked');
    await first.close();
    await first.close();
    expect(pool.listening).toEqual(['sbx-a']);
    await second.close();
    expect(pool.listening).toEqual([]);
    expect(await exists(socket('sbx-a'))).toBe(false);
  });

  it('injects credentials only for the scope written at setup, also after reopening', async () => {
    await pool.scope('sbx-b', 'acme/widgets');
    const lease = await pool.open('sbx-b');
    expect((await viaSocket(socket('sbx-b'), gitUrl('acme/widgets'))).status).toBe(502);
    expect(asked).toEqual([{ repository: 'acme/widgets' }]);
    const other = await viaSocket(socket('sbx-b'), gitUrl('acme/other'));
    expect(other.body).toContain('may only use GitHub repository acme/widgets');
    await lease.close();

    const again = await pool.open('sbx-b');
    await viaSocket(socket('sbx-b'), gitUrl('acme/widgets'));
    expect(asked).toHaveLength(2);
    await again.close();
    const scopeFile = join(pool.socketDir('sbx-b'), '..', 'scope.json');
    expect(JSON.parse(await readFile(scopeFile, 'utf8'))).toEqual({
      sandboxId: 'sbx-b',
      repository: 'acme/widgets',
    });
    expect((await stat(scopeFile)).mode & 0o077).toBe(0);
  });

  it('rescopes a running proxy, refuses GitHub without a scope, and forgets a deleted sandbox', async () => {
    const lease = await pool.open('sbx-c');
    const none = await viaSocket(socket('sbx-c'), gitUrl('acme/widgets'));
    expect(none.body).toContain('has no GitHub repository');
    await pool.scope('sbx-c', 'acme/widgets');
    await viaSocket(socket('sbx-c'), gitUrl('acme/widgets'));
    expect(asked).toEqual([{ repository: 'acme/widgets' }]);
    expect((await stat(pool.socketDir('sbx-c'))).mode & 0o777).toBe(0o700);
    await pool.forget('sbx-c');
    await lease.close();
    expect(await exists(join(pool.socketDir('sbx-c'), '..'))).toBe(false);
    expect(pool.listening).toEqual([]);
  });

  it('refuses a socket path too long for a Unix socket, naming it', async () => {
    const deep = new EgressProxyPool({
      dir: join(dir, 'x'.repeat(80)),
      github: { gitHost: 'github.test', apiHost: 'api.github.test' },
      allowlist: [],
      tokenSource,
    });
    const error = await deep.open('sbx-d').catch((e: unknown) => e);
    expect(sandboxErrorReason(error)).toBe('invalid_input');
    expect(String(error)).toMatch(/longer than 107 bytes/);
  });
});
