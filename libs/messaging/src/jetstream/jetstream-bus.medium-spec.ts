import { AppError } from '@caravel/errors';
import { serviceGate, testEnvironment } from '@caravel/testing';
import { describeBusBehaviour } from '../testing/bus-behaviour-suite.js';
import { connectJetStreamBus } from './connect-jetstream-bus.js';
import { jetStreamHarnessFactory } from './jetstream-bus.harness.js';

const gate = await serviceGate(['nats']);

gate.describe('JetStream bus', () => {
  describeBusBehaviour(jetStreamHarnessFactory(testEnvironment.TEST_NATS_URL), 'JetStream adapter');
});

describe('JetStream bus connection', () => {
  it('explains how to start NATS when nothing listens at the URL', async () => {
    const url = 'nats://127.0.0.1:1';
    const failure = connectJetStreamBus({ url, name: 'unreachable' });
    await expect(failure).rejects.toBeInstanceOf(AppError);
    await expect(failure).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      message: expect.stringContaining(
        `NATS is not reachable at ${url}: start it with \`nats-server -js\``,
      ),
    });
  });
});
