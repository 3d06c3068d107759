import {
  RunEvents,
  RunStartedV1,
  SandboxAcquire,
  StartRunV1,
  type Consumable,
  type Envelope,
  type StreamSpec,
} from '@caravel/contracts';
import type { Database } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import {
  CaravelContext,
  currentTrace,
  type MessageTrace,
  ConsumeEvent,
  ServeRequest,
  type Bus,
  type ConsumerOptions,
  type Delivery,
  type DeliveryHandler,
  type LeaseStore,
  type RequestHandler,
} from '@caravel/messaging';
import { Controller, Get, Inject, Module } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { composeRuntime } from './runtime.js';
import { startServiceHost, type ServiceHost } from './service-host.js';

/** A strict bus double: it records what the transport registers; anything else fails the test. */
class RecordingBus implements Bus {
  readonly kind = 'embedded' as const;
  readonly consumers: {
    definition: Consumable;
    durable: string;
    handler: DeliveryHandler<unknown>;
  }[] = [];
  readonly servers = new Map<string, RequestHandler>();
  closed = false;
  readonly leases = strictMock<LeaseStore>({}, 'leases');
  ensureStreams(_streams: readonly StreamSpec[]): Promise<void> {
    return Promise.reject(new Error('unexpected ensureStreams'));
  }
  publish(): Promise<never> {
    return Promise.reject(new Error('unexpected publish'));
  }
  consume<T>(definition: Consumable<T>, options: ConsumerOptions, handler: DeliveryHandler<T>) {
    this.consumers.push({
      definition: definition,
      durable: options.durable,
      handler: handler as DeliveryHandler<unknown>,
    });
    return Promise.resolve({ drain: () => Promise.resolve() });
  }
  serve(subject: string, handler: RequestHandler) {
    this.servers.set(subject, handler);
    return Promise.resolve({ drain: () => Promise.resolve() });
  }
  request(): Promise<never> {
    return Promise.reject(new Error('unexpected request'));
  }
  replay(): AsyncIterable<never> {
    throw new Error('unexpected replay');
  }
  deadLetters(): Promise<never> {
    return Promise.reject(new Error('unexpected deadLetters'));
  }
  replayDeadLetters(): Promise<never> {
    return Promise.reject(new Error('unexpected replayDeadLetters'));
  }
  backlog(): Promise<[]> {
    return Promise.resolve([]);
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

const seen: string[] = [];
const traces: (MessageTrace | undefined)[] = [];
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

@Controller()
class ProbeHandlers {
  @ConsumeEvent(StartRunV1, { service: 'agent-runner', ordered: true })
  first(@Payload() envelope: Envelope<{ prompt: string }>, @Ctx() context: CaravelContext): void {
    seen.push(`a:${envelope.data.prompt}:${context.delivery?.deliveryCount ?? 0}`);
    traces.push(context.trace, currentTrace());
    if (envelope.data.prompt === 'poison') throw new AppError('MESSAGE_MALFORMED', 'poison pill');
    if (envelope.data.prompt === 'later') throw new AppError('DEPENDENCY_UNAVAILABLE', 'try later');
  }

  @ConsumeEvent(StartRunV1, { service: 'dashboard' })
  second(@Payload() envelope: Envelope<{ prompt: string }>): void {
    seen.push(`b:${envelope.data.prompt}`);
  }

  @ConsumeEvent(RunEvents, { service: 'dashboard', ordered: true })
  runEvent(@Payload() envelope: Envelope<{ runId: string }>): void {
    seen.push(`run:${envelope.type}`);
  }

  @ServeRequest(SandboxAcquire)
  acquire(@Payload() request: unknown, @Ctx() context: CaravelContext): { received: unknown } {
    seen.push('acquire');
    traces.push(context.trace, currentTrace());
    return { received: request };
  }
}

@Controller('probe')
class ProbeHttp {
  constructor(@Inject('unused') private readonly unused: string) {}

  @Get('missing')
  missing(): never {
    throw new AppError('NOT_FOUND', `nothing here ${this.unused}`);
  }

  @Get('crash')
  crash(): never {
    throw new TypeError('secret internals');
  }
}

@Module({
  controllers: [ProbeHandlers, ProbeHttp],
  providers: [{ provide: 'unused', useValue: 'x' }],
})
class ProbeModule {}

function delivery(prompt: string): Delivery {
  return {
    envelope: StartRunV1.create(
      { ...StartRunV1.fixture().data, prompt },
      { source: 'spec', correlationId: 'conversation-1', traceparent: TRACEPARENT },
    ),
    subject: 's',
    stream: 'CARAVEL_COMMANDS',
    sequence: 1,
    deliveryCount: 1,
    working: () => Promise.resolve(),
    stopping: new AbortController().signal,
  };
}

describe('service host', () => {
  const bus = new RecordingBus();
  let host: ServiceHost;

  beforeAll(async () => {
    const database = strictMock<Database>(
      { ping: () => Promise.resolve(), close: () => Promise.resolve() },
      'database',
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

  it('gives each service consuming one message its own durable, named <service>-<message>', () => {
    expect(bus.consumers.map((c) => [c.definition.pattern, c.durable])).toEqual([
      [StartRunV1.pattern, 'agent-runner-run-start'],
      [StartRunV1.pattern, 'dashboard-run-start'],
      ['evt.run.*', 'dashboard-run-events'],
    ]);
  });

  it('gives a family one durable, its handler every member', async () => {
    seen.length = 0;
    const family = bus.consumers[2]!;
    expect(family.definition).toBe(RunEvents);
    await family.handler({ ...delivery('x'), envelope: RunStartedV1.fixture() });
    expect(seen).toEqual(['run:evt.run.started']);
  });

  it('runs only the consumer that received the delivery', async () => {
    seen.length = 0;
    await bus.consumers[1]!.handler(delivery('hello'));
    expect(seen).toEqual(['b:hello']);
  });

  it('hands the handler its delivery context', async () => {
    seen.length = 0;
    await bus.consumers[0]!.handler(delivery('ctx'));
    expect(seen).toEqual(['a:ctx:1']);
  });

  it("runs an event handler under its envelope's correlation id and traceparent", async () => {
    traces.length = 0;
    const handled = delivery('traced');
    await bus.consumers[0]!.handler(handled);
    const expected = {
      correlationId: 'conversation-1',
      causationId: handled.envelope.id,
      traceparent: TRACEPARENT,
    };
    expect(traces).toEqual([expected, expected]);
  });

  it('lets the original coded error reach the bus, so it settles from retryable', async () => {
    await expect(bus.consumers[0]!.handler(delivery('poison'))).rejects.toMatchObject({
      code: 'MESSAGE_MALFORMED',
      retryable: false,
    });
    await expect(bus.consumers[0]!.handler(delivery('later'))).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      retryable: true,
    });
  });

  it('serves a request handler with the request parsed against the catalogue', async () => {
    const acquire = bus.servers.get(SandboxAcquire.pattern)!;
    const threadId = '7f3a1c52-9a4e-4b8e-8f7d-2c1e5b6a9d40';
    const raw = { threadId, branch: 'caravel/t', unknownField: 'dropped' };
    traces.length = 0;
    const headers = { traceparent: TRACEPARENT, 'Caravel-Correlation-Id': 'conversation-2' };
    expect(await acquire(raw, `sandbox.${threadId}.acquire`, headers)).toEqual({
      received: { threadId, branch: 'caravel/t', purpose: 'agent' },
    });
    const expected = {
      correlationId: 'conversation-2',
      causationId: null,
      traceparent: TRACEPARENT,
    };
    expect(traces).toEqual([expected, expected]);
  });

  it('answers a malformed request MESSAGE_MALFORMED without calling its handler', async () => {
    seen.length = 0;
    const acquire = bus.servers.get(SandboxAcquire.pattern)!;
    await expect(
      acquire({ threadId: 'not-a-uuid' }, 'sandbox.x.acquire', {}),
    ).rejects.toMatchObject({
      code: 'MESSAGE_MALFORMED',
      retryable: false,
    });
    expect(seen).toEqual([]);
  });

  it('answers readiness and maps coded errors to HTTP without a stack', async () => {
    const ready = await fetch(`${host.url}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      checks: { bus: 'ok', database: 'ok' },
    });

    const missing = await fetch(`${host.url}/probe/missing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'nothing here x' },
    });

    const crash = await fetch(`${host.url}/probe/crash`);
    expect(crash.status).toBe(500);
    const body = await crash.text();
    expect(body).not.toContain('secret internals');
    expect(JSON.parse(body)).toEqual({ error: { code: 'INTERNAL', message: 'internal error' } });
  });

  it('serves Prometheus metrics: each answer counted under its route pattern, never its path', async () => {
    const series = (route: string, status: number) =>
      `caravel_http_requests_total{method="GET",route="${route}",status="${status}"}`;
    const count = async (name: string): Promise<number> => {
      const text = await (await fetch(`${host.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? 0 : Number(line.slice(name.length + 1));
    };
    const before = {
      live: await count(series('/health/live', 200)),
      unmatched: await count(series('unmatched', 404)),
    };
    await fetch(`${host.url}/health/live`);
    await fetch(`${host.url}/health/live`);
    await fetch(`${host.url}/no/such/path/${Date.now()}`);
    expect(await count(series('/health/live', 200))).toBe(before.live + 2);
    expect(await count(series('unmatched', 404))).toBe(before.unmatched + 1);

    const scrape = await fetch(`${host.url}/metrics`);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await scrape.text();
    expect(text).toContain('# TYPE caravel_bus_deliveries_total counter');
    expect(text).not.toContain('/no/such/path');
  });

  it('closes the bus when the host shuts down', async () => {
    await host.close();
    expect(bus.closed).toBe(true);
    host = strictMock<ServiceHost>({ close: () => Promise.resolve() }, 'closed host');
  });
});
