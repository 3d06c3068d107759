import { randomUUID } from 'node:crypto';
import { defineRequest, type RequestOf } from '@caravel/contracts';
import { serviceGate, testEnvironment } from '@caravel/testing';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import type { INestMicroservice } from '@nestjs/common';
import { z } from 'zod';
import type { Bus } from '../bus.port.js';
import { jetStreamHarnessFactory } from '../jetstream/jetstream-bus.harness.js';
import type { BusTestHarness } from '../testing/bus-harness.js';
import { CaravelTransport } from './caravel-transport.strategy.js';
import { ServeRequest } from './handler-decorators.js';

// Two replicas of a service serving the same request through the Nest transport on real NATS, as
// two sandbox brokers do: each request is handled by one of them, never by both. (Found by the
// scale-out measure, tools/scale: with two brokers every command, commit and push ran twice in
// the same workspace, and the loser's "index.lock exists" error could be the answer.)

const gate = await serviceGate(['nats']);
const Count = defineRequest({
  service: 'probe',
  op: 'count',
  request: z.object({ n: z.number() }),
  response: z.object({ by: z.string() }),
  description: 'a probe request that says which replica answered it',
});

/** Every request handled, by replica. */
const handled: { replica: string; n: number }[] = [];

function replicaModule(replica: string) {
  @Controller()
  class CountHandler {
    @ServeRequest(Count)
    handle(@Payload() request: RequestOf<typeof Count>) {
      handled.push({ replica, n: request.n });
      return { by: replica };
    }
  }
  @Module({ controllers: [CountHandler] })
  class ReplicaModule {}
  return ReplicaModule;
}

gate.describe('@ServeRequest on several replicas (JetStream)', () => {
  let harness: BusTestHarness;
  let client: Bus;
  const apps: INestMicroservice[] = [];

  beforeAll(async () => {
    harness = await jetStreamHarnessFactory(testEnvironment.TEST_NATS_URL)();
    for (const replica of ['a', 'b']) {
      const app = await NestFactory.createMicroservice(replicaModule(replica), {
        strategy: new CaravelTransport(await harness.replica(replica), [], [Count]),
        logger: ['fatal', 'error', 'warn'],
      });
      await app.listen();
      apps.push(app);
    }
    client = await harness.replica('client');
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await harness?.dispose();
  });

  it('hands each request to one replica, never to both', async () => {
    const requests = Array.from({ length: 40 }, (_, n) => n);
    const answers = await Promise.all(
      requests.map((n) => client.request(Count.subjectFor(randomUUID()), { n })),
    );
    expect(answers).toHaveLength(requests.length);
    expect(handled.map((h) => h.n).sort((x, y) => x - y)).toEqual(requests);
    // Both replicas are in the group: the requests were shared, not all sent to one.
    expect(new Set(handled.map((h) => h.replica))).toEqual(new Set(['a', 'b']));
  });
});
