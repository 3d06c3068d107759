import { StopThreadV1, TriggerReceivedV1, slackThreadId } from '@caravel/contracts';
import type { DeliveryRepository, SlackMessageRepository, ThreadRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { MessagePublisher, PublishAck } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { ingressConfigFrom } from '../ingress.config.js';
import { SlackMessageMap } from '../services/slack-message-map.js';
import { TriggerIntakeService } from '../services/trigger-intake.service.js';
import { slackEvent } from './payload.factory.js';
import { mapSlackEvent } from './slack-event.mapper.js';

const settings = { botUserId: 'UBOT' };
const ROOT_TS = '1700000000.000100';
const MOVED_TS = '1700000500.000500';
const THREAD = slackThreadId({ team: 'T0001', channel: 'C0123', threadTs: ROOT_TS });

/** `slack_messages` in memory, as the repository keeps it (a deleted row stays, marked). */
function messageTable() {
  const rows = new Map<string, { threadId: string; deleted: boolean }>();
  const key = (m: { team: string; channel: string; ts: string }) =>
    `${m.team}/${m.channel}/${m.ts}`;
  const repository = strictMock<SlackMessageRepository>(
    {
      record: (m) => {
        if (!rows.has(key(m))) rows.set(key(m), { threadId: m.threadId, deleted: false });
        return Promise.resolve(rows.get(key(m))?.threadId ?? m.threadId);
      },
      threadOf: (m) => Promise.resolve(rows.get(key(m))?.threadId ?? null),
      follow: (from, to) => {
        const threadId = rows.get(key(from))?.threadId ?? null;
        if (threadId) rows.set(key(to), { threadId, deleted: false });
        return Promise.resolve(threadId);
      },
      markDeleted: (m) => {
        const row = rows.get(key(m));
        if (row) row.deleted = true;
        return Promise.resolve(row?.threadId ?? null);
      },
    },
    'slackMessages',
  );
  return { rows, repository };
}

/** The intake with the message map over strict doubles; only THREAD is a thread Caravel has. */
function intake() {
  const table = messageTable();
  const publish = jest.fn((_definition: unknown, _data: unknown, _options: unknown) =>
    Promise.resolve<PublishAck>({ stream: 'TEST', sequence: 1, duplicate: false }),
  );
  const service = new TriggerIntakeService(
    strictMock<DeliveryRepository>(
      {
        findBySemanticKey: () => Promise.resolve(null),
        claim: () => Promise.resolve({ outcome: 'claimed' as const }),
        settle: () => Promise.resolve(),
        record: () => Promise.resolve(true),
      },
      'deliveries',
    ),
    strictMock<ThreadRepository>(
      { get: (id) => Promise.resolve(id === THREAD ? factory.thread({ id }) : null) },
      'threads',
    ),
    strictMock<MessagePublisher>({ publish }, 'publisher'),
    ingressConfigFrom({ TRUSTED_AUTHORS: 'slack:U0USER' }),
    new SlackMessageMap(table.repository),
  );
  const take = async (event: Record<string, unknown>, id: string) => {
    const body = slackEvent(event, id);
    const decision = mapSlackEvent(body, settings);
    if (decision.kind === 'challenge') throw new Error('not a challenge');
    return service.take(decision, { payload: body, sha256: id });
  };
  /** The threads the published messages of `definition` went to, in order. */
  const sent = (definition: unknown) =>
    publish.mock.calls
      .filter(([published]) => published === definition)
      .map(([, data]) => (data as { threadId: string }).threadId);
  const triggered = () => sent(TriggerReceivedV1);
  const stopped = () => sent(StopThreadV1);
  return { take, triggered, stopped, table };
}

const mention = { type: 'message', text: '<@UBOT> fix the parser', ts: ROOT_TS };
const reply = (channel: string, threadTs: string, ts: string) => ({
  type: 'message',
  text: 'also the README',
  channel,
  ts,
  thread_ts: threadTs,
});

/** A person's ❌ on the message at `ts` in `channel`. */
const crossOn = (channel: string, ts: string) => ({
  type: 'reaction_added',
  user: 'U0USER',
  reaction: 'x',
  item: { type: 'message', channel, ts },
});

describe('the Slack message map', () => {
  it('maps a request and its thread root, and keeps a moved thread on its thread', async () => {
    const { take, triggered, table } = intake();
    await take(mention, 'Ev1');
    expect(table.rows.get(`T0001/C0123/${ROOT_TS}`)).toEqual({ threadId: THREAD, deleted: false });

    // The thread's root moves to C0999 under a new ts; a reply there still reaches its thread.
    const moved = await take(
      {
        type: 'message',
        subtype: 'message_changed',
        channel: 'C0999',
        message: { ts: MOVED_TS, text: '<@UBOT> fix the parser', user: 'U0USER' },
        previous_message: { ts: ROOT_TS, channel: 'C0123' },
      },
      'Ev2',
    );
    expect(moved).toMatchObject({ body: { threadId: THREAD } });
    await take(reply('C0999', MOVED_TS, '1700000600.000600'), 'Ev3');

    expect(triggered()).toEqual([THREAD, THREAD]);
    expect(table.rows.get(`T0001/C0999/1700000600.000600`)?.threadId).toBe(THREAD);
  });

  it('stops the thread a moved message belongs to when a person reacts ❌ to it', async () => {
    const { take, stopped } = intake();
    await take(mention, 'Ev1');
    await take(
      {
        type: 'message',
        subtype: 'message_changed',
        channel: 'C0999',
        message: { ts: MOVED_TS, text: '<@UBOT> fix the parser', user: 'U0USER' },
        previous_message: { ts: ROOT_TS, channel: 'C0123' },
      },
      'Ev2',
    );
    const cross = (ts: string) => crossOn('C0999', ts);
    expect(await take(cross(MOVED_TS), 'Ev3')).toMatchObject({ body: { threadId: THREAD } });
    // A message the map does not have keeps the thread its own place names: none Caravel is in.
    expect(await take(cross('1700000900.000900'), 'Ev4')).toMatchObject({
      body: { accepted: false },
    });
    expect(stopped()).toEqual([THREAD]);
  });

  it('stops the thread when a person reacts ❌ to a reply Caravel posted in it (the runner mapped it)', async () => {
    const { take, stopped, table } = intake();
    await take(mention, 'Ev1');
    const caravelsReply = '1700000100.000200';
    const cross = (ts: string) => crossOn('C0123', ts);
    // Before the runner recorded its post, the reply's own place names no thread Caravel has.
    expect(await take(cross(caravelsReply), 'Ev2')).toMatchObject({ body: { accepted: false } });

    await table.repository.record({
      team: 'T0001',
      channel: 'C0123',
      ts: caravelsReply,
      threadId: THREAD,
    });
    expect(await take(cross(caravelsReply), 'Ev3')).toMatchObject({ body: { threadId: THREAD } });
    expect(stopped()).toEqual([THREAD]);
  });

  it("follows an edit without a request, and ignores a change to a message it doesn't have", async () => {
    const { take, triggered } = intake();
    await take(mention, 'Ev1');
    const edit = {
      type: 'message',
      subtype: 'message_changed',
      channel: 'C0123',
      message: { ts: ROOT_TS, text: '<@UBOT> fix the lexer', user: 'U0USER' },
      previous_message: { ts: ROOT_TS },
    };
    expect(await take(edit, 'Ev2')).toMatchObject({ body: { threadId: THREAD } });
    const stranger = { ...edit, message: { ts: '1.1' }, previous_message: { ts: '1.1' } };
    expect(await take(stranger, 'Ev3')).toMatchObject({ body: { accepted: false } });
    expect(triggered()).toEqual([THREAD]);
  });

  it('keeps a thread whose root was deleted: no new thread, later replies reach it', async () => {
    const { take, triggered, table } = intake();
    await take(mention, 'Ev1');
    await take(reply('C0123', ROOT_TS, '1700000100.000200'), 'Ev2');

    const deleted = await take(
      {
        type: 'message',
        subtype: 'message_deleted',
        channel: 'C0123',
        deleted_ts: ROOT_TS,
        previous_message: { ts: ROOT_TS, text: '<@UBOT> fix the parser' },
      },
      'Ev3',
    );
    expect(deleted).toMatchObject({ body: { threadId: THREAD } });
    expect(table.rows.get(`T0001/C0123/${ROOT_TS}`)).toEqual({ threadId: THREAD, deleted: true });
    await take(reply('C0123', ROOT_TS, '1700000200.000300'), 'Ev4');

    expect(triggered()).toEqual([THREAD, THREAD, THREAD]);
  });
});
