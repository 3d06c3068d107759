import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { countingStatements } from '../testing/statement-counter.js';
import { BusMessageRepository, type NewBusMessage } from './bus-message.repository.js';

await describeEachDatabase('bus message appends', openDatabase, (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await target.open();
  });

  afterAll(async () => {
    await database?.close();
  });

  const message = (stream: string): NewBusMessage => ({
    stream,
    subject: 'caravel.trigger.received',
    threadId: null,
    messageId: randomUUID(),
    payload: '{}',
  });

  it.each([
    ['serialised: one insert', true, 1],
    ['not serialised: the advisory lock, then the insert', false, 2],
  ])('appends in order and returns a repeat its stored sequence (%s)', async (_, serial, each) => {
    const counter = countingStatements(database.db);
    const messages = new BusMessageRepository(counter.db, { appendsSerialised: serial });
    const stream = `s${randomUUID().slice(0, 8)}`;
    const sent = [message(stream), message(stream), message(stream)];
    const appended = [];
    for (const one of sent) appended.push(await messages.append(one));
    expect(counter.statements()).toBe(3 * each);
    expect(appended.map((result) => result.duplicate)).toEqual([false, false, false]);
    const sequences = appended.map((result) => result.sequence);
    expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);

    expect(await messages.append({ ...sent[1]!, payload: '{"again":true}' })).toEqual({
      sequence: sequences[1],
      duplicate: true,
    });
    const log = await messages.read({ stream, afterSequence: 0, limit: 10 });
    expect(log.map((row) => row.sequence)).toEqual(sequences);
  });

  it('appends concurrent messages as one insert where appends are serialised, a twin once', async () => {
    const counter = countingStatements(database.db);
    const messages = new BusMessageRepository(counter.db, { appendsSerialised: true });
    const stream = `s${randomUUID().slice(0, 8)}`;
    const [lone, first, second] = [message(stream), message(stream), message(stream)];
    // The lone append goes at once; the three queued behind it go as one insert, and the twin's
    // stored sequence is looked up after it.
    const results = await Promise.all(
      [lone, first, second, { ...first }].map((one) => messages.append(one)),
    );
    expect(counter.statements()).toBe(3);
    expect(results.map((result) => result.duplicate)).toEqual([false, false, false, true]);
    expect(results[3]!.sequence).toBe(results[1]!.sequence);
    const log = await messages.read({ stream, afterSequence: 0, limit: 10 });
    expect(log.map((row) => row.sequence)).toEqual(results.slice(0, 3).map((r) => r.sequence));
  });

  it('fails only the append the database refuses; the rest of its group is appended once', async () => {
    const messages = new BusMessageRepository(database.db, { appendsSerialised: true });
    const stream = `s${randomUUID().slice(0, 8)}`;
    const refused = { ...message(stream), payload: 'a\u0000b' };
    const [lone, bad, ...rest] = await Promise.allSettled(
      [message(stream), refused, message(stream), message(stream)].map((one) =>
        messages.append(one),
      ),
    );
    expect(lone).toMatchObject({ status: 'fulfilled', value: { duplicate: false } });
    expect(bad).toMatchObject({ status: 'rejected' });
    expect(rest).toEqual([
      { status: 'fulfilled', value: { sequence: expect.any(Number) as unknown, duplicate: false } },
      { status: 'fulfilled', value: { sequence: expect.any(Number) as unknown, duplicate: false } },
    ]);
    const log = await messages.read({ stream, afterSequence: 0, limit: 10 });
    expect(log).toHaveLength(3);
  });
});
