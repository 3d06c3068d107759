import { CARAVEL_NAMESPACE, TriggerReceivedV1, uuidV5, type EnvelopeOf } from '@caravel/contracts';
import type { NewTriggerRefusal, ThreadRepository, TriggerRefusalRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import type { ReplyDestination, ReplyPort } from '../replies/reply.port.js';
import { slackFollowUp } from '../testing/slack-follow-up.js';
import type { TriggerAccess, TriggerAccessPolicy } from './trigger-access-policy.js';
import { TriggerAccessService } from './trigger-access.service.js';

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
