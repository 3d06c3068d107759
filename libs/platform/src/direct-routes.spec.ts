import type { Database } from '@caravel/db';
import { AppError, isAppError } from '@caravel/errors';
import type { Bus } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { Controller, Get, Injectable, Module } from '@nestjs/common';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { BodyBudget, DirectRoutes, readRequestBody, type DirectAnswer } from './direct-routes.js';
import { composeRuntime } from './runtime.js';
import { startServiceHost, type ServiceHost } from './service-host.js';

const LIMIT = 16;
const handled: string[] = [];

/** Registers the routes under test, as a service module's provider does. */
@Injectable()
class ProbeRoutes {
  constructor(routes: DirectRoutes) {
    routes.post('/hooks/echo', async (request) => this.echo(request));
    routes.post('/hooks/outage', () =>
      Promise.reject(new AppError('DEPENDENCY_UNAVAILABLE', 'the bus is away')),
    );
    routes.post('/hooks/crash', () => Promise.reject(new TypeError('secret internals')));
    const full = new BodyBudget(4);
    routes.post('/hooks/budgeted', async (request) => ({
      status: 202,
      body: { length: (await readRequestBody(request, LIMIT, full))?.length },
    }));
  }

  private async echo(request: IncomingMessage): Promise<DirectAnswer> {
    const body = await readRequestBody(request, LIMIT);
    if (!body) return { status: 413, body: { error: { code: 'BAD_REQUEST' } }, dropRequest: true };
    handled.push(body.toString());
    return { status: 202, body: { echoed: body.toString(), url: request.url } };
  }
}

/** A framework route beside them: it must keep answering. */
@Controller('hooks')
class FrameworkRoutes {
  @Get('echo')
  echo(): { framework: true } {
    return { framework: true };
  }
}

@Module({ controllers: [FrameworkRoutes], providers: [ProbeRoutes] })
class ProbeModule {}

async function post(host: ServiceHost, path: string, body: string) {
  const response = await fetch(`${host.url}${path}`, { method: 'POST', body });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe('direct routes', () => {
  let host: ServiceHost;

  beforeAll(async () => {
    const database = strictMock<Database>(
      { ping: () => Promise.resolve(), close: () => Promise.resolve() },
      'database',
    );
    const bus = strictMock<Bus>(
      { kind: 'embedded', close: () => Promise.resolve(), ping: () => Promise.resolve() },
      'bus',
    );
    host = await startServiceHost({
      runtime: composeRuntime({ name: 'spec', mode: 'embedded', bus, database }),
      modules: [ProbeModule],
      port: 0,
      logLevels: ['fatal'],
    });
  });

  afterAll(async () => {
    await host.close();
  });

  it("serves a registered route with its handler's status and JSON answer", async () => {
    handled.length = 0;
    expect(await post(host, '/hooks/echo', 'hello')).toMatchObject({
      status: 202,
      body: { echoed: 'hello' },
    });
    expect(handled).toEqual(['hello']);
  });

  it.each(['/hooks/echo/', '/HOOKS/Echo', '/hooks/echo?source=spec'])(
    'matches %s as Express would',
    async (path) => {
      expect(await post(host, path, 'x')).toMatchObject({ status: 202, body: { echoed: 'x' } });
    },
  );

  it('leaves other methods and paths to the framework', async () => {
    const get = await fetch(`${host.url}/hooks/echo`);
    expect(await get.json()).toEqual({ framework: true });
    expect((await post(host, '/hooks/unknown', 'x')).status).toBe(404);
    expect((await fetch(`${host.url}/health/live`)).status).toBe(200);
  });

  it('answers a coded error as the framework does, Retry-After included', async () => {
    expect(await post(host, '/hooks/outage', '')).toEqual({
      status: 503,
      retryAfter: '30',
      body: { error: { code: 'DEPENDENCY_UNAVAILABLE', message: 'the bus is away' } },
    });
  });

  it('answers an uncoded error 500 without its message or stack', async () => {
    expect(await post(host, '/hooks/crash', '')).toEqual({
      status: 500,
      retryAfter: null,
      body: { error: { code: 'INTERNAL', message: 'internal error' } },
    });
  });

  it('stops reading a body over the limit and answers at once', async () => {
    handled.length = 0;
    const answer = await post(host, '/hooks/echo', 'x'.repeat(LIMIT + 1));
    expect(answer).toMatchObject({ status: 413, body: { error: { code: 'BAD_REQUEST' } } });
    expect(handled).toEqual([]);
  });

  it('answers 429 with Retry-After when the bodies being read would pass their budget', async () => {
    expect(await post(host, '/hooks/budgeted', 'x'.repeat(LIMIT))).toEqual({
      status: 429,
      retryAfter: '5',
      body: {
        error: {
          code: 'RATE_LIMITED',
          message: 'too many request bodies are being read: retry shortly',
        },
      },
    });
    expect(await post(host, '/hooks/budgeted', 'abc')).toMatchObject({ status: 202 });
  });

  it('counts each answer under the route it was registered as', async () => {
    await post(host, '/hooks/echo?n=1', 'counted');
    const metrics = await (await fetch(`${host.url}/metrics`)).text();
    expect(metrics).toMatch(
      /caravel_http_requests_total\{method="POST",route="\/hooks\/echo",status="202"\} \d+/,
    );
    expect(metrics).not.toContain('route="/hooks/echo?n=1"');
  });

  it('refuses a second route on the same method and path', () => {
    const routes = new DirectRoutes();
    routes.post('/a', () => Promise.resolve({ status: 200, body: {} }));
    expect(() => routes.post('/A/', () => Promise.resolve({ status: 200, body: {} }))).toThrow(
      'already served',
    );
  });
});

/** A promise and its resolve, for an answer that comes from a callback. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('readRequestBody within a budget shared by the bodies being read', () => {
  /** A request whose body arrives as the test writes it. */
  function arriving(): PassThrough & IncomingMessage {
    return new PassThrough() as PassThrough & IncomingMessage;
  }
  /** One turn of the event loop: the chunks written so far reach the reader. */
  const delivered = () => new Promise((resolve) => setImmediate(resolve));

  it('refuses a body that would pass the budget while others are read, and frees theirs when they end', async () => {
    const budget = new BodyBudget(10);
    const slow = arriving();
    const slowBody = readRequestBody(slow, 100, budget);
    slow.write(Buffer.alloc(8));
    await delivered();
    expect(budget.heldBytes).toBe(8);

    const flood = arriving();
    const floodBody = readRequestBody(flood, 100, budget);
    flood.write(Buffer.alloc(4));
    await expect(floodBody).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(budget.heldBytes).toBe(8);

    slow.end(Buffer.alloc(1));
    expect((await slowBody)?.length).toBe(9);
    expect(budget.heldBytes).toBe(0);

    const next = arriving();
    const nextBody = readRequestBody(next, 100, budget);
    next.end(Buffer.alloc(4));
    expect((await nextBody)?.length).toBe(4);
    expect(budget.heldBytes).toBe(0);
  });

  it('gives back what a body held when its sender goes away midway', async () => {
    const budget = new BodyBudget(100);
    const server = createServer((request) => {
      readRequestBody(request, 100, budget).then(
        () => settled.resolve('read'),
        (error: unknown) => settled.resolve(isAppError(error) ? error.code : 'uncoded'),
      );
    });
    const settled = deferred<string>();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n' + 'x'.repeat(20));
    await new Promise((resolve) => setImmediate(resolve));
    socket.destroy();
    expect(await settled.promise).toBe('BAD_REQUEST');
    expect(budget.heldBytes).toBe(0);
    await new Promise((resolve) => server.close(resolve));
  });

  it('gives back what a body over its own limit held', async () => {
    const budget = new BodyBudget(100);
    const large = arriving();
    const body = readRequestBody(large, 16, budget);
    large.write(Buffer.alloc(17));
    expect(await body).toBeUndefined();
    expect(budget.heldBytes).toBe(0);
  });
});
