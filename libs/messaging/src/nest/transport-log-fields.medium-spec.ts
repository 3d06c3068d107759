import { randomUUID } from 'node:crypto';
import { STREAMS, type Envelope } from '@caravel/contracts';
import { installLogger } from '@caravel/logging';
import { serviceGate, testEnvironment } from '@caravel/testing';
import { Controller, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import type { INestMicroservice } from '@nestjs/common';
import type { Bus } from '../bus.port.js';
import { jetStreamHarnessFactory } from '../jetstream/jetstream-bus.harness.js';
import { probeMessage, type ProbeData } from '../testing/bus-test-messages.js';
import type { BusTestHarness } from '../testing/bus-harness.js';
import { eventually } from '../testing/eventually.js';
import { CaravelTransport } from './caravel-transport.strategy.js';
import { ConsumeEvent } from './handler-decorators.js';

// A message consumed through the Nest transport on real JetStream: the line its handler logs
// (through a plain `new Logger('X')`, as the services do) carries the envelope's correlation id,
// the thread, the subject and the message type, with no handler code passing them.

const gate = await serviceGate(['nats']);
const probe = probeMessage('cmd', 'log-fields');

@Controller()
class ProbeHandler {
  private readonly log = new Logger('ProbeHandler');

  @ConsumeEvent(probe, { service: 'dispatch' })
  handle(@Payload() envelope: Envelope<ProbeData>): void {
    this.log.log(`handled probe ${envelope.data.n}`);
  }
}

@Module({ controllers: [ProbeHandler] })
class ProbeModule {}

gate.describe('transport log fields (JetStream)', () => {
  const lines: Record<string, unknown>[] = [];
  let harness: BusTestHarness;
  let bus: Bus;
  let app: INestMicroservice;

  beforeAll(async () => {
    installLogger({
      service: 'log-probe',
      destination: {
        write: (text: string) => lines.push(JSON.parse(text) as Record<string, unknown>),
      },
    });
    harness = await jetStreamHarnessFactory(testEnvironment.TEST_NATS_URL)();
    bus = await harness.replica('log-fields');
    await bus.ensureStreams(Object.values(STREAMS));
    app = await NestFactory.createMicroservice(ProbeModule, {
      strategy: new CaravelTransport(bus, [probe]),
      logger: ['fatal', 'error', 'warn', 'log'],
    });
    await app.listen();
  });

  afterAll(async () => {
    await app?.close();
    await harness?.dispose();
    Logger.overrideLogger(true);
  });

  it("logs a consumed message's handler line with its correlation id, thread and subject", async () => {
    const threadId = randomUUID();
    const correlationId = `corr-${randomUUID()}`;
    const envelope = probe.create({ threadId, n: 7 }, { source: 'test', correlationId });
    await bus.publish(probe, envelope);

    const line = await eventually(() => {
      const found = lines.find((l) => l['msg'] === 'handled probe 7');
      if (!found) throw new Error('the handler has not logged yet');
      return found;
    });
    expect(line).toMatchObject({
      service: 'log-probe',
      context: 'ProbeHandler',
      correlationId,
      threadId,
      subject: probe.subjectFor(envelope.data),
      messageType: envelope.type,
    });
    const startup = lines.find((l) => String(l['msg']).startsWith('consuming '));
    expect(startup).toMatchObject({ context: 'CaravelTransport' });
    expect(startup?.['correlationId']).toBeUndefined();
  });
});
