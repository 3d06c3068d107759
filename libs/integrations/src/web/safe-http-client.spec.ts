import { isAppError, type AppError } from '@caravel/errors';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { HostResolver } from './guarded-resolver.js';
import { HostAllowlist } from './host-allowlist.js';
import { SafeHttpClient, type SafeHttpOptions } from './safe-http-client.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP server on 127.0.0.1 that records what reaches it. */
class LoopbackSite {
  readonly seen: Seen[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(private readonly answer: (req: IncomingMessage, res: ServerResponse) => void) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body,
        });
        this.answer(req, res);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path = '/', host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

const text =
  (body: string, status = 200, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    res.end(body);
  };

const redirect =
  (location: (req: IncomingMessage) => string, status = 302) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(status, { location: location(req) });
    res.end();
  };

async function failure(work: Promise<unknown>): Promise<AppError> {
  try {
    await work;
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

/** A resolver that knows only the names given (tests never touch real DNS). */
function resolverOf(names: Record<string, string[]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (hostname: string) => {
    calls.push(hostname);
    const addresses = names[hostname];
    if (!addresses) return Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }));
    return Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return Object.assign(resolve, { calls });
}

const sites: LoopbackSite[] = [];
async function site(answer: ConstructorParameters<typeof LoopbackSite>[0]): Promise<LoopbackSite> {
  const started = await new LoopbackSite(answer).start();
  sites.push(started);
  return started;
}

afterEach(async () => {
  await Promise.all(sites.splice(0).map((s) => s.stop()));
});

const client = (allowed: string[], options: Partial<SafeHttpOptions> = {}): SafeHttpClient =>
  new SafeHttpClient({ allowlist: new HostAllowlist(allowed), ...options });

describe('SafeHttpClient on real loopback servers', () => {
  it('refuses loopback in every spelling the URL parser accepts, before connecting', async () => {
    const target = await site(text('secret'));
    const http = client([]);
    for (const host of ['127.0.0.1', '0x7f.1', '2130706433', '0177.0.0.1', '[::ffff:127.0.0.1]']) {
      const error = await failure(http.send({ method: 'GET', url: target.url('/', host) }));
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toMatch(/loopback address.*WEB_ALLOWED_HOSTS/);
    }
    const named = await failure(http.send({ method: 'GET', url: target.url('/', 'localhost') }));
    expect(named.message).toMatch(/localhost resolves to it/);
    expect(target.seen).toHaveLength(0);
  });

  it('reaches an allowlisted internal host and reports status, headers and body', async () => {
    const target = await site(text('hello', 201, { 'x-answer': '42' }));
    const answer = await client(['127.0.0.1']).send({
      method: 'POST',
      url: target.url('/things?x=1'),
      headers: { 'content-type': 'application/json', host: 'evil.example' },
      body: '{"a":1}',
    });
    expect(answer).toMatchObject({ status: 201, url: target.url('/things?x=1'), redirects: 0 });
    expect(answer.headers['x-answer']).toBe('42');
    expect(answer.body.toString()).toBe('hello');
    expect(answer.truncated).toBe(false);
    expect(target.seen[0]).toMatchObject({ method: 'POST', url: '/things?x=1', body: '{"a":1}' });
    expect(target.seen[0]?.headers.host).toBe(`127.0.0.1:${target.port}`);
  });

  it('refuses a redirect to a private address, even from an allowed host', async () => {
    const internal = await site(text('internal secrets'));
    const front = await site(redirect(() => internal.url('/admin', 'localhost')));
    const error = await failure(client(['127.0.0.1']).send({ method: 'GET', url: front.url() }));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain(`Refused http://localhost:${internal.port}`);
    expect(internal.seen).toHaveLength(0);
  });

  it('follows a redirect to an allowlisted host, connecting to the address it was checked at', async () => {
    const docs = await site(text('the docs'));
    const front = await site(redirect(() => docs.url('/guide', 'docs.internal'), 301));
    const resolve = resolverOf({ 'docs.internal': ['127.0.0.1'] });
    const answer = await client(['127.0.0.1', 'docs.internal'], { resolve }).send({
      method: 'GET',
      url: front.url(),
    });
    expect(answer).toMatchObject({ status: 200, redirects: 1 });
    expect(answer.url).toBe(docs.url('/guide', 'docs.internal'));
    expect(answer.body.toString()).toBe('the docs');
    expect(docs.seen[0]?.headers.host).toBe(`docs.internal:${docs.port}`);
    // One lookup for the one named hop: the connection reused the checked answer.
    expect(resolve.calls).toEqual(['docs.internal']);
  });

  it('resolves once per hop, so a rebinding answer never reaches the connection', async () => {
    const target = await site(text('pinned'));
    let answers = 0;
    const rebinding: HostResolver = () => {
      answers += 1;
      const address = answers === 1 ? '127.0.0.1' : '169.254.169.254';
      return Promise.resolve([{ address, family: 4 }]);
    };
    const answer = await client(['rebind.test'], { resolve: rebinding }).send({
      method: 'GET',
      url: target.url('/', 'rebind.test'),
    });
    expect(answer.body.toString()).toBe('pinned');
    expect(answers).toBe(1);
  });

  it('refuses a host with any non-public answer, and metadata even when allowlisted', async () => {
    const resolve = resolverOf({
      'mixed.test': ['8.8.8.8', '10.0.0.7'],
      'meta.test': ['169.254.169.254'],
      'meta6.test': ['::ffff:169.254.169.254'],
    });
    const http = client(['meta.test', 'meta6.test', '169.254.169.254'], { resolve });
    const mixed = await failure(http.send({ method: 'GET', url: 'http://mixed.test/' }));
    expect(mixed.message).toMatch(/10\.0\.0\.7 is a private address/);
    for (const url of ['http://meta.test/', 'http://meta6.test/', 'http://169.254.169.254/']) {
      const error = await failure(http.send({ method: 'GET', url }));
      expect(error).toMatchObject({ code: 'FORBIDDEN', details: { kind: 'metadata' } });
    }
  });

  it('refuses redirects to other schemes and gives up after the redirect limit', async () => {
    const toFile = await site(redirect(() => 'file:///etc/passwd'));
    const http = client(['127.0.0.1'], { maxRedirects: 3 });
    const scheme = await failure(http.send({ method: 'GET', url: toFile.url() }));
    expect(scheme).toMatchObject({ code: 'BAD_REQUEST' });
    expect(scheme.message).toMatch(/uses file:; only http and https/);

    const loop = await site(redirect((req) => `/again${req.url ?? ''}`));
    const looping = await failure(http.send({ method: 'GET', url: loop.url() }));
    expect(looping.message).toMatch(/redirected more than 3 times/);
    expect(loop.seen).toHaveLength(4);
  });

  it('turns a POST answered by 303 into a GET and drops credentials across origins', async () => {
    const other = await site(text('done'));
    const first = await site(redirect(() => other.url('/result', 'localhost'), 303));
    const resolve = resolverOf({ localhost: ['127.0.0.1'] });
    await client(['127.0.0.1', 'localhost'], { resolve }).send({
      method: 'POST',
      url: first.url('/submit'),
      headers: { authorization: 'Bearer t', 'content-type': 'text/plain', 'x-keep': 'yes' },
      body: 'payload',
    });
    expect(first.seen[0]).toMatchObject({ method: 'POST', body: 'payload' });
    expect(first.seen[0]?.headers.authorization).toBe('Bearer t');
    expect(other.seen[0]).toMatchObject({ method: 'GET', body: '' });
    expect(other.seen[0]?.headers.authorization).toBeUndefined();
    expect(other.seen[0]?.headers['content-type']).toBeUndefined();
    expect(other.seen[0]?.headers['x-keep']).toBe('yes');
  });

  it('cuts a body at the size limit, after decompression', async () => {
    const big = await site(text('x'.repeat(10_000)));
    const bomb = await site((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(gzipSync(Buffer.alloc(5_000_000, 'a')));
    });
    const http = client(['127.0.0.1'], { maxResponseBytes: 1000 });
    const plain = await http.send({ method: 'GET', url: big.url() });
    expect(plain.body.length).toBe(1000);
    expect(plain.truncated).toBe(true);
    const inflated = await http.send({ method: 'GET', url: bomb.url() });
    expect(inflated.body.toString()).toBe('a'.repeat(1000));
    expect(inflated.truncated).toBe(true);
    expect(bomb.seen[0]?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('times out a server that never answers with a coded TIMEOUT', async () => {
    const silent = await site(() => undefined);
    const error = await failure(
      client(['127.0.0.1'], { timeoutMs: 150 }).send({ method: 'GET', url: silent.url() }),
    );
    expect(error).toMatchObject({ code: 'TIMEOUT', details: { timeoutMs: 150 } });
  });

  it('codes malformed input and unreachable hosts', async () => {
    const http = client(['127.0.0.1'], { resolve: resolverOf({}) });
    await expect(http.send({ method: 'GET', url: 'ftp://example.com/' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(http.send({ method: 'GET', url: 'http://u:p@x.test/' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(http.send({ method: 'GET', url: 'http://nowhere.test/' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Could not resolve nowhere.test (ENOTFOUND).',
    });
    const closed = await site(text('bye'));
    await closed.stop();
    sites.splice(sites.indexOf(closed), 1);
    await expect(http.send({ method: 'GET', url: closed.url() })).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
    const target = await site(text('x'));
    await expect(
      http.send({ method: 'GET', url: target.url(), headers: { 'x-bad': 'a\r\nb' } }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
