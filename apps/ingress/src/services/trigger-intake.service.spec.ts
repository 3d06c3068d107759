import { TriggerReceivedV1, type RepositoryRef } from '@caravel/contracts';
import type { DeliveryRepository, DeliveryRow, ThreadRepository } from '@caravel/db';
import type { MessagePublisher, PublishAck } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { mapGithubEvent } from '../events/github-event.mapper.js';
import { githubPayload } from '../events/payload.factory.js';
import type { TriggerDecision } from '../events/webhook-decision.js';
import { ingressConfigFrom } from '../ingress.config.js';
import type { OrgMembershipCheck } from './public-repo-gate.js';
import { TriggerIntakeService } from './trigger-intake.service.js';
import type { RepositoryAccessService } from './repository-access.service.js';

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
  const asked: string[] = [];
  const membership = strictMock<OrgMembershipCheck>(
    {
      isMember: (org, login) => {
        asked.push(`${org}:${login}`);
        return Promise.resolve(true);
      },
    },
    'membership',
  );
  const publish = jest.fn((_definition: unknown, _data: unknown, _options: unknown) =>
    Promise.resolve<PublishAck>({ stream: 'TEST', sequence: 1, duplicate: false }),
  );
  const service = new TriggerIntakeService(
    deliveries,
    strictMock<ThreadRepository>({}, 'threads'),
    strictMock<MessagePublisher>({ publish }, 'publisher'),
    ingressConfigFrom({ GITHUB_BOT_HANDLE: 'caravel', PUBLIC_REPO_ORG_GATE: 'true' }),
    membership,
    strictMock<RepositoryAccessService>({}, 'access'),
  );
  return { service, asked, publish };
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

  it('answers a settled repeat from its claim when the payload settles the gate', async () => {
    const claim = jest.fn(() =>
      Promise.resolve({ outcome: 'settled' as const, existing: settledRow('thread') }),
    );
    const { service, publish } = intake(strictMock<DeliveryRepository>({ claim }, 'deliveries'));
    const { decision, body } = mentionBy('OWNER');

    expect(await service.take(decision, body)).toMatchObject({ body: { reason: 'duplicate' } });
    expect(publish).not.toHaveBeenCalled();
  });

  it('does not ask GitHub about the author of a settled repeat on a public repository', async () => {
    const findBySourceDelivery = jest.fn((_source: string, _deliveryId: string) =>
      Promise.resolve(settledRow('thread')),
    );
    const { service, asked, publish } = intake(
      strictMock<DeliveryRepository>({ findBySourceDelivery }, 'deliveries'),
    );
    const { decision, body } = mentionBy('CONTRIBUTOR');

    expect(await service.take(decision, body)).toMatchObject({ body: { reason: 'duplicate' } });
    expect(findBySourceDelivery).toHaveBeenCalledWith('github', 'guid-7');
    expect(asked).toEqual([]);
    expect(publish).not.toHaveBeenCalled();
  });
});

describe('a repository a chat message names', () => {
  const slackMention = (text: string): TriggerDecision => ({
    kind: 'trigger',
    source: 'slack',
    event: 'app_mention',
    deliveryId: 'Ev1',
    semanticKey: 'C1:1.000001',
    threadId: '00000000-0000-4000-8000-000000000001',
    author: { externalId: 'U0STRANGER' },
    text,
    replyTo: { channel: 'C1', threadTs: '1.000001' },
    container: 'C1',
  });

  function intakeWithAccess(refusal: (repository: RepositoryRef) => string | null) {
    const publish = jest.fn(() =>
      Promise.resolve<PublishAck>({ stream: 'TEST', sequence: 1, duplicate: false }),
    );
    const asked = jest.fn((_decision: TriggerDecision, repository: RepositoryRef) =>
      Promise.resolve(refusal(repository)),
    );
    const service = new TriggerIntakeService(
      strictMock<DeliveryRepository>(
        {
          claim: () => Promise.resolve({ outcome: 'claimed' as const }),
          settle: () => Promise.resolve(),
        },
        'deliveries',
      ),
      strictMock<ThreadRepository>({ get: () => Promise.resolve(null) }, 'threads'),
      strictMock<MessagePublisher>({ publish }, 'publisher'),
      ingressConfigFrom({ DEFAULT_REPOSITORY: 'acme/widgets' }),
      strictMock<OrgMembershipCheck>({}, 'membership'),
      strictMock<RepositoryAccessService>({ refusal: asked }, 'access'),
    );
    return { service, publish, asked };
  }
  const body = { payload: {}, sha256: 'sha' };

  it('publishes nothing when the person may not use the repository they named', async () => {
    const { service, publish, asked } = intakeWithAccess(
      (r) => `slack:U0STRANGER named ${r.owner}/${r.name} but has no linked GitHub account`,
    );

    const answer = await service.take(slackMention('summarise repo:acme/payroll-private'), body);

    expect(answer.body).toMatchObject({
      accepted: false,
      reason: 'slack:U0STRANGER named acme/payroll-private but has no linked GitHub account',
    });
    expect(asked).toHaveBeenCalledWith(expect.anything(), {
      owner: 'acme',
      name: 'payroll-private',
    });
    expect(publish).not.toHaveBeenCalled();
  });

  it('publishes the trigger when the person may use it', async () => {
    const { service, publish } = intakeWithAccess(() => null);

    await service.take(slackMention('summarise repo:acme/payroll-private'), body);

    expect(publish).toHaveBeenCalledTimes(1);
  });

  it('does not ask about the repository an admin chose for the place (the default), named or not', async () => {
    const { service, publish, asked } = intakeWithAccess(() => 'never');

    await service.take(slackMention('summarise the auth code'), body);
    await service.take(slackMention('summarise the auth code repo:acme/widgets'), body);

    expect(asked).not.toHaveBeenCalled();
    expect(publish).toHaveBeenCalledTimes(2);
  });
});
