import { runCli, type CliIo } from '@caravel/cli';
import { defineMessage } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type { Subscription } from '@caravel/messaging';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import { until } from './harness/scenario-run.js';

// The way back for a message the platform gave up on, as an operator takes it: the dashboard's
// API through `caravel dead-letters`, on both pairs. A consumer dead-letters a message whose
// failure is not retryable; once the cause is fixed, a replay hands it back to that consumer
// alone, which handles it once; a second replay does nothing.
const DASHBOARD_TOKEN = 'dead-letters-token';

const Probe = defineMessage({
  kind: 'cmd',
  name: 'probe.dead-letter-replay',
  version: 1,
  description: 'platform scenario probe: a message dead-lettered, then replayed',
  data: z.object({ threadId: z.uuid(), note: z.string() }),
  fixture: { threadId: '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e', note: '' },
});

/** Runs `caravel …` against the pair's dashboard and keeps what it printed. */
async function caravel(pair: PlatformPair, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    stdin: Readable.from([]),
    onSignal: () => undefined,
  };
  const status = await runCli([...args, '--url', pair.host.url], { DASHBOARD_TOKEN }, io);
  return { status, out: out.join(''), err: err.join('') };
}

await describeEachPair('dead letters, listed and replayed by an operator', (kind) => {
  let pair: PlatformPair;
  let subscription: Subscription | undefined;

  beforeAll(async () => {
    pair = await startPair(kind, { DASHBOARD_TOKEN });
  }, 120_000);

  afterAll(async () => {
    await subscription?.drain();
    await pair?.close();
  });

  it('lists the dead letter, replays it to its consumer once, and refuses a bad token', async () => {
    const durable = `dl-replay-${kind}-${randomUUID().slice(0, 8)}`;
    let fixed = false;
    const handled: string[] = [];
    const deliveries: number[] = [];
    subscription = await pair.bus.consume(Probe, { durable, maxDeliver: 2 }, (delivery) => {
      deliveries.push(delivery.deliveryCount);
      if (!fixed) {
        // Not retryable: dead-lettered at once, whatever maxDeliver says.
        return Promise.reject(new AppError('BAD_REQUEST', 'the probe cannot be handled yet'));
      }
      handled.push(delivery.envelope.data.note);
      return Promise.resolve();
    });
    const threadId = randomUUID();
    await pair.bus.publish(
      Probe,
      Probe.create({ threadId, note: 'first' }, { source: 'platform-scenario' }),
    );

    const listed = await until(async () => {
      const list = await caravel(pair, 'dead-letters', 'list', '--consumer', durable);
      return list.out.includes('1 dead letters, 1 not replayed') ? list : undefined;
    }, 'the dead letter to be listed');
    expect(listed.status).toBe(0);
    expect(listed.out).toMatch(/BAD_REQUEST: the probe cannot be handled yet/);
    const id = /^(\S+:\S+:\d+)$/m.exec(listed.out)?.[1];
    expect(id).toBeDefined();
    expect(handled).toEqual([]);

    const refused = await caravel(pair, 'dead-letters', 'replay', id ?? '', '--token', 'wrong');
    expect(refused.status).toBe(1);
    expect(refused.err).toMatch(/the dashboard refused this token/);

    fixed = true;
    const replayed = await caravel(pair, 'dead-letters', 'replay', id ?? '');
    expect(replayed).toMatchObject({ status: 0, err: '' });
    expect(replayed.out).toContain(`${id}: handed back to its consumer`);
    await until(async () => (handled.length > 0 ? handled : undefined), 'the replayed message');
    expect(handled).toEqual(['first']);

    const again = await caravel(pair, 'dead-letters', 'replay', '--consumer', durable);
    expect(again.out).toContain(`${id}: already replayed before: nothing done`);
    expect(again.out).toContain('0 of 1 replayed');
    const after = await caravel(pair, 'dead-letters', '--consumer', durable);
    expect(after.out).toMatch(/\(replayed \d{4}-/);
    expect(after.out).toContain('1 dead letters, 0 not replayed');
    // Handled once: the second replay sent nothing, and nothing else was delivered.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(handled).toEqual(['first']);
  }, 240_000);
});
