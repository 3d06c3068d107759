import type { Database } from '@caravel/db';
import { AppError } from '@caravel/errors';
import type { Bus } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { Controller, Get, Injectable, Module } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { DirectRoutes, readRequestBody, type DirectAnswer } from './direct-routes.js';
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
