// The same loop through a Caravel Bus adapter: publish an envelope, consume it with a durable,
// let the library settle (ackAck on success).
import { randomUUID } from 'node:crypto';
import { defineMessage } from '@caravel/contracts';
import { z } from 'zod';
import { publishWindowed, Recorder, within } from './measure.mjs';

export const BenchPingV1 = defineMessage({
  kind: 'cmd',
  name: 'bench.ping',
  version: 1,
  description: 'bus benchmark message',
  data: z.object({ threadId: z.uuid(), n: z.number().int() }),
  fixture: { threadId: '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e', n: 0 },
});

export async function runCaravelBus(adapter, { messages, window }) {
  const { bus, cleanup } = await adapter.open();
  try {
    const recorder = new Recorder(messages);
    const subscription = await bus.consume(
      BenchPingV1,
      { durable: 'bench', concurrency: 64 },
      async (d) => {
        recorder.handled(d.envelope.id);
      },
    );
    const startedAt = performance.now();
    await publishWindowed(messages, window, async (n) => {
      const envelope = BenchPingV1.create({ threadId: randomUUID(), n }, { source: 'bench' });
      recorder.sent(envelope.id);
      await bus.publish(BenchPingV1, envelope);
    });
    const handledAt = await within(recorder.done, 120_000, `${adapter.name} consume`);
    // Handlers return before the library's ackAck: drain so every ack is in before stopping the clock.
    await subscription.drain();
    return recorder.summary(startedAt, Math.max(handledAt, performance.now()));
  } finally {
    await cleanup();
  }
}
