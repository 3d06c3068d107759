import { StopThreadV1, slackThreadId } from '@caravel/contracts';
import type { DeliveryRepository, DeliveryRow, ThreadRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { MessagePublisher, PublishAck } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { jest } from '@jest/globals';
import { ingressConfigFrom } from '../ingress.config.js';
import { TriggerIntakeService } from '../services/trigger-intake.service.js';
import { slackEvent } from './payload.factory.js';
import { mapSlackEvent } from './slack-event.mapper.js';

const settings = { botUserId: 'UBOT' };
const MESSAGE_TS = '1700000000.000100';
const ROOT = slackThreadId({ team: 'T0001', channel: 'C0123', threadTs: MESSAGE_TS });

function reaction(reaction: string, user = 'U0USER', item: Record<string, unknown> = {}) {
  return slackEvent(
    {
      type: 'reaction_added',
      user,
      reaction,
      item_user: 'U0OTHER',
      item: { type: 'message', channel: 'C0123', ts: MESSAGE_TS, ...item },
    },
    'EvStop1',
  );
}

describe('a Slack reaction', () => {
  it('❌ on a message asks to stop the thread it belongs to', () => {
    expect(mapSlackEvent(reaction('x'), settings)).toMatchObject({
      kind: 'stop',
      source: 'slack',
      deliveryId: 'EvStop1',
      threadId: ROOT,
      messageKey: `message:C0123:${MESSAGE_TS}`,
      author: { externalId: 'U0USER' },
    });
  });

  it('any other emoji, a bot or a file is nothing', () => {
    expect(mapSlackEvent(reaction('eyes'), settings)).toMatchObject({ kind: 'ignore' });
    expect(mapSlackEvent(reaction('x', 'UBOT'), settings)).toEqual({
      kind: 'ignore',
      reason: 'bot reaction',
    });
    expect(mapSlackEvent(reaction('x', 'U0USER', { type: 'file' }), settings)).toMatchObject({
      kind: 'ignore',
    });
  });
});

describe('the intake of a stop request', () => {
  const STARTED = slackThreadId({ team: 'T0001', channel: 'C0123', threadTs: '1699999999.000001' });

  function intake(options: { trusted: string; asked?: string; known?: boolean }) {
    const publish = jest.fn(() =>
      Promise.resolve<PublishAck>({ stream: 'TEST', sequence: 1, duplicate: false }),
    );
    const service = new TriggerIntakeService(
      strictMock<DeliveryRepository>(
        {
          findBySemanticKey: jest.fn(() =>
            Promise.resolve(options.asked ? ({ threadId: options.asked } as DeliveryRow) : null),
          ),
          claim: jest.fn(() => Promise.resolve({ outcome: 'claimed' as const })),
          settle: jest.fn(() => Promise.resolve()),
        },
        'deliveries',
      ),
      strictMock<ThreadRepository>(
        {
          get: jest.fn(() =>
            Promise.resolve(options.known === false ? null : factory.thread({ id: STARTED })),
          ),
        },
        'threads',
      ),
      strictMock<MessagePublisher>({ publish }, 'publisher'),
      ingressConfigFrom({ TRUSTED_AUTHORS: options.trusted }),
    );
    const take = (body: unknown) => {
      const decision = mapSlackEvent(body, settings);
      if (decision.kind === 'challenge') throw new Error('not a challenge');
      return service.take(decision, { payload: body, sha256: 'x' });
    };
    return { take, publish };
  }

  it('publishes one stop for the thread the message started, from an allowed person', async () => {
    const { take, publish } = intake({ trusted: 'slack:U0USER', asked: STARTED });
    expect(await take(reaction('x'))).toEqual({
      status: 200,
      body: { accepted: true, threadId: STARTED },
    });
    expect(publish).toHaveBeenCalledWith(
      StopThreadV1,
      {
        threadId: STARTED,
        source: 'slack',
        requestedBy: { externalId: 'U0USER' },
        requestId: 'EvStop1',
      },
      expect.anything(),
    );
  });

  it('stops nothing for a person who may not trigger Caravel, or a thread Caravel is not in', async () => {
    const foreign = intake({ trusted: 'slack:USOMEONE', asked: STARTED });
    expect((await foreign.take(reaction('x'))).body).toEqual({
      accepted: false,
      reason: 'slack:U0USER may not stop Caravel (not in TRUSTED_AUTHORS)',
    });
    const unknown = intake({ trusted: 'slack:U0USER', known: false });
    expect((await unknown.take(reaction('x'))).body).toEqual({
      accepted: false,
      reason: 'not a thread Caravel is in',
    });
    expect(foreign.publish).not.toHaveBeenCalled();
    expect(unknown.publish).not.toHaveBeenCalled();
  });
});
