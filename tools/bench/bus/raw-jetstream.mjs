// The baseline: plain @nats-io/jetstream publish + pull-consume + ackAck, no Caravel code.
import { randomBytes } from 'node:crypto';
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { publishWindowed, Recorder, within } from './measure.mjs';

export async function runRawJetStream({ url, messages, window }) {
  const prefix = `bench${randomBytes(4).toString('hex')}`;
  const nc = await connect({ servers: url, name: `${prefix}-raw` });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const stream = `${prefix}_RAW`;
  try {
    await jsm.streams.add({
      name: stream,
      subjects: [`${prefix}.raw.>`],
      duplicate_window: 120_000_000_000,
    });
    await jsm.consumers.add(stream, { durable_name: 'raw', ack_policy: AckPolicy.Explicit });
    const consumer = await js.consumers.get(stream, 'raw');
    const recorder = new Recorder(messages);
    const iterator = await consumer.consume({ max_messages: 256 });
    void (async () => {
      for await (const m of iterator) {
        const key = m.headers?.get('Nats-Msg-Id') ?? '';
        recorder.handled(key);
        void m.ackAck().catch(() => undefined);
      }
    })();
    const startedAt = performance.now();
    await publishWindowed(messages, window, async (n) => {
      const id = `${prefix}-${n}`;
      recorder.sent(id);
      await js.publish(`${prefix}.raw.m`, JSON.stringify({ n }), { msgID: id });
    });
    const finishedAt = await within(recorder.done, 120_000, 'raw consume');
    await iterator.close();
    return recorder.summary(startedAt, finishedAt);
  } finally {
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  }
}
