import { TriggerReceivedV1, type RepositoryRef } from '@caravel/contracts';
import type { DeliveryRepository, DeliveryRow, ThreadRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { MessagePublisher, PublishAck } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { mapGithubEvent } from '../events/github-event.mapper.js';
import { githubPayload } from '../events/payload.factory.js';
import type { TriggerDecision } from '../events/webhook-decision.js';
import { ingressConfigFrom } from '../ingress.config.js';
import { TriggerIntakeService } from './trigger-intake.service.js';

/** A mention of @caravel on acme/widgets (public, an organization's) by an author `association`. */
function mentionBy(association: string) {
  const payload = githubPayload.issueComment('@caravel fix the parser');
  payload.comment.author_association = association;
  const decision = mapGithubEvent(
    { event: 'issue_comment', deliveryId: 'guid-7', payload },
    { botHandle: 'caravel' },
  );
  if (decision.kind !== 'trigger') throw new Error(`expected a trigger, got ${decision.kind}`);
  return { decision, body: { payload, sha256: 'sha-7' } };
}

/** The settled row a delivery left the first time it came. */
function settledRow(threadId: string): DeliveryRow {
  return {
    id: 'row-7',
    source: 'github',
    deliveryId: 'guid-7',
    semanticKey: null,
    threadId,
    event: 'issue_comment',
    receivedAt: new Date('2026-01-02T10:00:00Z'),
    payload: {},
    payloadSha256: 'sha-7',
    settledAt: new Date('2026-01-02T10:00:01Z'),
  };
}

/** The intake over strict doubles: `deliveries` is what the test lets it touch. */
function intake(deliveries: DeliveryRepository) {
  const publish = jest.fn((_definition: unknown, _data: unknown, _options: unknown) =>
    Promise.resolve<PublishAck>({ stream: 'TEST', sequence: 1, duplicate: false }),
  );
  const service = new TriggerIntakeService(
    deliveries,
    strictMock<ThreadRepository>({}, 'threads'),
    strictMock<MessagePublisher>({ publish }, 'publisher'),
    ingressConfigFrom({ GITHUB_BOT_HANDLE: 'caravel' }),
  );
  return { service, publish };
}

describe('the trigger intake', () => {
  it('claims a new delivery without looking it up first, then publishes and settles it', async () => {
    const claim = jest.fn(() => Promise.resolve({ outcome: 'claimed' as const }));
    const settle = jest.fn(() => Promise.resolve());
    const { service, publish } = intake(
      strictMock<DeliveryRepository>({ claim, settle }, 'deliveries'),
    );
    const { decision, body } = mentionBy('MEMBER');

    const answer = await service.take(decision, body);

    expect(answer).toEqual({ status: 200, body: { accepted: true, threadId: decision.threadId } });
    expect(claim).toHaveBeenCalledTimes(1);
    expect(publish).toHaveBeenCalledWith(TriggerReceivedV1, expect.anything(), expect.anything());
    expect(settle).toHaveBeenCalledTimes(1);
  });

  it('answers once the bus acknowledged, before the settle is done; shutdown waits for it', async () => {
    let settled: () => void = () => undefined;
    const settle = jest.fn(() => new Promise<void>((resolve) => (settled = resolve)));
    const claim = jest.fn(() => Promise.resolve({ outcome: 'claimed' as const }));
    const { service } = intake(strictMock<DeliveryRepository>({ claim, settle }, 'deliveries'));
    const { decision, body } = mentionBy('MEMBER');

    expect(await service.take(decision, body)).toMatchObject({ body: { accepted: true } });
    let shutDown = false;
    const shutdown = service.onApplicationShutdown().then(() => (shutDown = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settle).toHaveBeenCalledTimes(1);
    expect(shutDown).toBe(false);
    settled();
    await shutdown;
    expect(shutDown).toBe(true);
  });

  it('answers 2xx when the settle fails after the publish: the repeat settles it', async () => {
    const settle = jest.fn(() => Promise.reject(new Error('database lost')));
    const claim = jest.fn(() => Promise.resolve({ outcome: 'claimed' as const }));
    const { service } = intake(strictMock<DeliveryRepository>({ claim, settle }, 'deliveries'));
    const { decision, body } = mentionBy('MEMBER');

    expect(await service.take(decision, body)).toMatchObject({ body: { accepted: true } });
    await service.onApplicationShutdown();
    expect(settle).toHaveBeenCalledTimes(1);
  });

  it('answers a settled repeat from its claim', async () => {
    const claim = jest.fn(() =>
      Promise.resolve({ outcome: 'settled' as const, existing: settledRow('thread') }),
    );
    const { service, publish } = intake(strictMock<DeliveryRepository>({ claim }, 'deliveries'));
    const { decision, body } = mentionBy('CONTRIBUTOR');

    expect(await service.take(decision, body)).toMatchObject({ body: { reason: 'duplicate' } });
    expect(publish).not.toHaveBeenCalled();
  });

  it("publishes a public repository's non-member mention with the actor facts, asking nothing", async () => {
    const claim = jest.fn(() => Promise.resolve({ outcome: 'claimed' as const }));
    const settle = jest.fn(() => Promise.resolve());
    const { service, publish } = intake(
      strictMock<DeliveryRepository>({ claim, settle }, 'deliveries'),
    );
    const { decision, body } = mentionBy('NONE');

    expect(await service.take(decision, body)).toMatchObject({ body: { accepted: true } });
    expect(publish.mock.calls[0]?.[1]).toMatchObject({
      githubActor: {
        login: decision.author.externalId,
        association: 'NONE',
        repository: { owner: 'acme', name: 'widgets', private: false },
      },
    });
    expect(publish.mock.calls[0]?.[1]).not.toHaveProperty('placeRepository');
  });
});

describe("a chat message's repository", () => {
  const slackMention = (text: string, container = 'C1'): TriggerDecision => ({
    kind: 'trigger',
    source: 'slack',
    event: 'app_mention',
    deliveryId: 'Ev1',
    semanticKey: 'C1:1.000001',
    threadId: '00000000-0000-4000-8000-000000000001',
    author: { externalId: 'U0STRANGER' },
    text,
    replyTo: { channel: 'C1', threadTs: '1.000001' },
    container,
  });

  function chatIntake(env: Record<string, string>, threadRepository?: RepositoryRef) {
    const publish = jest.fn((_definition: unknown, _data: unknown, _options: unknown) =>
      Promise.resolve<PublishAck>({ stream: 'TEST', sequence: 1, duplicate: false }),
    );
    const service = new TriggerIntakeService(
      strictMock<DeliveryRepository>(
        {
          claim: () => Promise.resolve({ outcome: 'claimed' as const }),
          settle: () => Promise.resolve(),
        },
        'deliveries',
      ),
      strictMock<ThreadRepository>(
        {
          get: (id) =>
            Promise.resolve(
              threadRepository ? factory.thread({ id, repository: threadRepository }) : null,
            ),
        },
        'threads',
      ),
      strictMock<MessagePublisher>({ publish }, 'publisher'),
      ingressConfigFrom(env),
    );
    const published = () => publish.mock.calls.map(([, data]) => data as Record<string, unknown>);
    return { service, published };
  }
  const body = { payload: {}, sha256: 'sha' };

  it("publishes a named repository with the place's own, asking nothing: dispatch decides", async () => {
    const { service, published } = chatIntake({
      DEFAULT_REPOSITORY: 'acme/widgets',
      REPOSITORY_ROUTES: 'slack:C2=acme/api',
    });

    await service.take(slackMention('summarise repo:acme/payroll-private'), body);
    await service.take(slackMention('summarise repo:acme/payroll-private', 'C2'), body);

    expect(published()).toMatchObject([
      {
        repository: { owner: 'acme', name: 'payroll-private' },
        placeRepository: { owner: 'acme', name: 'widgets' },
      },
      { placeRepository: { owner: 'acme', name: 'api' } },
    ]);
  });

  it("publishes a follow-up that names nothing with the place's repository, null without one", async () => {
    const onPayroll = { owner: 'acme', name: 'payroll-private' };
    const routed = chatIntake({ DEFAULT_REPOSITORY: 'acme/widgets' }, onPayroll);
    const unrouted = chatIntake({}, onPayroll);

    await routed.service.take(slackMention('and the tests?'), body);
    await unrouted.service.take(slackMention('and the tests?'), body);

    expect(routed.published()[0]).not.toHaveProperty('repository');
    expect(routed.published()[0]).toMatchObject({
      placeRepository: { owner: 'acme', name: 'widgets' },
    });
    expect(unrouted.published()[0]).toMatchObject({ placeRepository: null });
  });
});
