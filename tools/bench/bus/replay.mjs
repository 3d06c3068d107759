// Replay from JetStream: a stream's stored messages read back in order, through the Caravel bus's
// `replay` (an ephemeral ordered consumer, each message turned into a StoredMessage with its
// envelope parsed) against a raw ordered consumer of @nats-io/jetstream on the same stream doing
// the same JSON parse, in the same run. Both must read every message once, or the bench fails.
import { randomUUID } from 'node:crypto';
import { STREAMS } from '@caravel/contracts';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { BenchPingV1 } from './caravel-bus.mjs';
import { publishWindowed } from './measure.mjs';

/** Reads the stream with a raw ordered consumer until `expected` messages came; events/s. */
async function rawOrdered(url, stream, expected) {
  const nc = await connect({ servers: url, name: 'bench-replay-raw' });
  try {
    const consumer = await jetstream(nc).consumers.get(stream);
    const startedAt = performance.now();
    let read = 0;
    const messages = await consumer.consume({ max_messages: 256 });
    for await (const message of messages) {
      message.json();
      read += 1;
      if (read === expected) break;
    }
    const seconds = (performance.now() - startedAt) / 1000;
    await messages.close();
    return { read, rate: read / seconds };
  } finally {
    await nc.close();
  }
}

/** Reads the stream through the bus's replay to its end; events/s. */
async function caravelReplay(bus) {
  const startedAt = performance.now();
  let read = 0;
  for await (const stored of bus.replay(STREAMS.COMMANDS)) {
    if (stored.envelope.id === undefined) throw new Error('a replayed message has no envelope');
    read += 1;
  }
  return { read, rate: read / ((performance.now() - startedAt) / 1000) };
}

/**
 * Stores `messages` envelopes in a fresh namespace's command stream, then reads them back both
 * ways, alternating `rounds` times (the median of each is kept).
 */
export async function runReplay(adapter, { url, messages, rounds = 3 }) {
  const { bus, streamName, cleanup } = await adapter.open();
  try {
    await publishWindowed(messages, 64, (n) =>
      bus.publish(
        BenchPingV1,
        BenchPingV1.create({ threadId: randomUUID(), n }, { source: 'bench' }),
      ),
    );
    const raw = [];
    const caravel = [];
    for (let round = 0; round < rounds; round += 1) {
      raw.push(await rawOrdered(url, streamName(STREAMS.COMMANDS), messages));
      caravel.push(await caravelReplay(bus));
    }
    for (const result of [...raw, ...caravel])
      if (result.read !== messages)
        throw new Error(`replay read ${result.read} of the ${messages} stored messages`);
    const median = (results) =>
      results.map((r) => r.rate).sort((a, b) => a - b)[results.length >> 1];
    return { raw: median(raw), caravel: median(caravel) };
  } finally {
    await cleanup();
  }
}
