import { CARAVEL_NAMESPACE, TriggerReceivedV1, uuidV5, type EnvelopeOf } from '@caravel/contracts';
import type {
  IdentityRepository,
  NewTriggerRefusal,
  ThreadRepository,
  TriggerRefusalRepository,
} from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { GitHubOrgMembership, IntegrationAdapters } from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { dispatchConfigOf, dispatchEnvSchema } from '../dispatch.config.js';
import type { ReplyDestination, ReplyPort } from '../replies/reply.port.js';
import { slackFollowUp } from '../testing/slack-follow-up.js';
import type { TriggerAccess, TriggerAccessPolicy } from './trigger-access-policy.js';
import { TriggerAccessService, triggerAccessPolicy } from './trigger-access.service.js';

const PAYROLL = { owner: 'acme', name: 'payroll-private' };

function trigger(): EnvelopeOf<typeof TriggerReceivedV1> {
  return TriggerReceivedV1.create(slackFollowUp(), {
    source: 'ingress',
    idempotencyKey: 'slack:C1:1.000009',
  });
}

function service(decision: TriggerAccess | Error, reply?: () => Promise<'posted'>) {
  const decide = jest.fn(
    (_data: unknown, threadRepository: () => Promise<unknown>): Promise<TriggerAccess> =>
      decision instanceof Error
        ? Promise.reject(decision)
        : threadRepository().then(() => decision),
  );
  const posted = jest.fn(
    (_destination: ReplyDestination, _key: string, _text: string) =>
      reply?.() ?? Promise.resolve('posted' as const),
  );
  const recorded = new Set<string>();
  const record = jest.fn((refusal: NewTriggerRefusal) =>
    Promise.resolve(!recorded.has(refusal.triggerId) && Boolean(recorded.add(refusal.triggerId))),
  );
  const deleteBefore = jest.fn((_before: Date) => Promise.resolve(2));
  const subject = new TriggerAccessService(
    strictMock<TriggerAccessPolicy>({ decide }, 'policy'),
    strictMock<ThreadRepository>(
      { get: (id) => Promise.resolve(factory.thread({ id, repository: PAYROLL })) },
      'threads',
    ),
    strictMock<TriggerRefusalRepository>({ record, deleteBefore }, 'refusals'),
    strictMock<ReplyPort>({ reply: posted }, 'replies'),
    { now: () => NOW },
  );
  return { subject, decide, posted, record, deleteBefore };
}

const NOW = new Date('2026-12-05T10:00:00Z');

const REFUSED: TriggerAccess = {
  allowed: false,
  check: 'repository_access',
  reason:
    'slack:U0MALLORY (@mallory) asked for acme/payroll-private, which @mallory has no access to on GitHub',
  reply:
    'I did not work on acme/payroll-private: your GitHub account @mallory has no access to it.',
};

describe('TriggerAccessService', () => {
  it("admits an allowed trigger, deciding on its thread's repository, and says nothing", async () => {
    const { subject, decide, posted } = service({ allowed: true });

    expect(await subject.admits(trigger())).toBe(true);
    await expect(decide.mock.calls[0]?.[1]()).resolves.toEqual(PAYROLL);
    expect(posted).not.toHaveBeenCalled();
  });

  it('refuses a person who may not use the repository, records it and answers once in their thread', async () => {
    const { subject, posted, record } = service(REFUSED);
    const refused = trigger();

    expect(await subject.admits(refused)).toBe(false);
    expect(record).toHaveBeenCalledWith({
      triggerId: refused.id,
      threadId: refused.data.threadId,
      source: 'slack',
      author: 'slack:U0MALLORY',
      rule: 'repository_access',
      reason: REFUSED.reason,
      refusedAt: NOW,
    });
    expect(posted).toHaveBeenCalledWith(
      { source: 'slack', replyTo: { channel: 'C1', threadTs: '1.000001' } },
      uuidV5('repository-refused:slack:C1:1.000009', CARAVEL_NAMESPACE),
      REFUSED.reply,
    );
  });

  it('keeps the refusal when its reply fails (logged, not retried)', async () => {
    const { subject } = service(REFUSED, () => Promise.reject(new Error('Slack 500')));

    expect(await subject.admits(trigger())).toBe(false);
  });

  it('answers nothing to a GitHub actor the public-repository gate refuses, and records it', async () => {
    const { subject, posted, record } = service({
      allowed: false,
      check: 'public_repo_gate',
      reason: 'on public repository acme/widgets, @mallory is not a member of acme',
    });

    expect(await subject.admits(trigger())).toBe(false);
    expect(posted).not.toHaveBeenCalled();
    expect(record).toHaveBeenCalledWith(expect.objectContaining({ rule: 'public_repo_gate' }));
  });

  it('deletes the refusals past their retention, 30 days', async () => {
    const { subject, deleteBefore } = service({ allowed: true });

    expect(await subject.pruneRefusals()).toBe(2);
    expect(deleteBefore).toHaveBeenCalledWith(new Date('2026-11-05T10:00:00Z'));
  });

  it('throws what GitHub failed with, so the trigger is redelivered', async () => {
    const { subject, posted, record } = service(new Error('GitHub 502'));

    await expect(subject.admits(trigger())).rejects.toThrow('GitHub 502');
    expect(posted).not.toHaveBeenCalled();
    expect(record).not.toHaveBeenCalled();
  });
});

/** A comment of @`login` (not vouched for by its association) on public acme/widgets. */
function githubComment(login: string, deliveryId: string) {
  return TriggerReceivedV1.dataSchema.parse({
    threadId: '00000000-0000-4000-8000-000000000002',
    source: 'github',
    deliveryId,
    author: { externalId: login },
    text: '@caravel fix it',
    trusted: false,
    repository: { owner: 'acme', name: 'widgets' },
    githubActor: {
      login,
      userType: 'User',
      association: 'NONE',
      repository: { owner: 'acme', name: 'widgets', private: false, ownerIsOrganization: true },
    },
  });
}

describe('triggerAccessPolicy', () => {
  /** Dispatch's policy over a GitHub that answers `answers` in turn (an Error: it fails). */
  function dispatchPolicy(env: Record<string, string>, ...answers: (boolean | Error)[]) {
    const isMember = jest.fn((_org: string, _login: string, _repository: unknown) => {
      const answer = answers.shift() ?? new Error('GitHub was asked once too often');
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    });
    const membership = strictMock<GitHubOrgMembership>({ isMember }, 'membership');
    const adapters = strictMock<IntegrationAdapters>(
      { orgMembership: () => membership, repositoryAccess: () => null },
      'adapters',
    );
    const policy = triggerAccessPolicy(
      dispatchConfigOf(dispatchEnvSchema.parse(env)),
      strictMock<IdentityRepository>({}, 'identities'),
      { now: () => NOW },
      adapters,
    );
    return { policy, isMember };
  }

  it('asks GitHub once about a non-member who comments twice', async () => {
    const { policy, isMember } = dispatchPolicy({}, false);

    for (const delivery of ['guid-1', 'guid-2']) {
      expect(await policy.decide(githubComment('mallory', delivery), noThread)).toMatchObject({
        allowed: false,
        reason: 'on public repository acme/widgets, @mallory is not a member of acme',
      });
    }
    expect(isMember).toHaveBeenCalledTimes(1);
  });

  it('keeps no failed question: the redelivery asks GitHub again', async () => {
    const { policy, isMember } = dispatchPolicy({}, new Error('GitHub 502'), true);

    await expect(policy.decide(githubComment('alice', 'guid-1'), noThread)).rejects.toThrow(
      'GitHub 502',
    );
    expect(await policy.decide(githubComment('alice', 'guid-1'), noThread)).toEqual({
      allowed: true,
    });
    expect(await policy.decide(githubComment('alice', 'guid-2'), noThread)).toEqual({
      allowed: true,
    });
    expect(isMember).toHaveBeenCalledTimes(2);
  });

  it('asks every time with PUBLIC_REPO_GATE_CACHE_SECONDS=0', async () => {
    const { policy, isMember } = dispatchPolicy(
      { PUBLIC_REPO_GATE_CACHE_SECONDS: '0' },
      false,
      true,
    );

    expect(await policy.decide(githubComment('mallory', 'guid-1'), noThread)).toMatchObject({
      allowed: false,
    });
    expect(await policy.decide(githubComment('mallory', 'guid-2'), noThread)).toEqual({
      allowed: true,
    });
    expect(isMember).toHaveBeenCalledTimes(2);
  });
});

const noThread = () => Promise.reject(new Error('the thread is not read'));
