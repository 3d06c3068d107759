import { TriggerReceivedV1, type EnvelopeOf } from '@caravel/contracts';
import type {
  AwaitingBudgetPause,
  BudgetPauseRepository,
  BudgetPauseStanding,
  ThreadPlanRepository,
} from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { dispatchConfigOf, dispatchEnvSchema } from '../dispatch.config.js';
import type { RunNotifierService } from '../replies/run-notifier.service.js';
import { budgetGrantRefusedText, stalePauseText } from './budget-grant.js';
import { BudgetGrantService } from './budget-grant.service.js';

const NOW = new Date('2026-12-02T11:00:00Z');

const PAUSE: AwaitingBudgetPause = {
  runId: '6f1c0c1e-2b7d-4f55-9a43-6d1f4e2b8a10',
  threadId: TriggerReceivedV1.fixture().data.threadId,
  budgetUsd: 2.5,
  spentUsd: 2,
  pausedAt: NOW,
  grantedUsd: null,
  grantedBy: null,
  grantedAt: null,
  resumedBy: null,
  withdrawnAt: null,
  withdrawnBy: null,
  standing: 'open',
  supersededBy: null,
};

function reply(text: string, from = 'U1'): EnvelopeOf<typeof TriggerReceivedV1> {
  const fixture = TriggerReceivedV1.fixture();
  return {
    ...fixture,
    data: { ...fixture.data, source: 'slack', text, author: { externalId: from }, kind: 'message' },
  };
}

/** The service over strict doubles: a thread owned by slack:U1 whose run paused (unless told). */
function setup(
  options: { paused?: boolean; admins?: string; standing?: BudgetPauseStanding } = {},
) {
  const grant = jest.fn((_grant: object) => Promise.resolve(PAUSE));
  const pause = { ...PAUSE, standing: options.standing ?? 'open' };
  const listAwaiting = jest.fn((_query: object) =>
    Promise.resolve(options.paused === false ? [] : [pause]),
  );
  const announce = jest.fn((_threadId: string, _key: string, _text: string) =>
    Promise.resolve('posted' as const),
  );
  const service = new BudgetGrantService(
    strictMock<BudgetPauseRepository>({ listAwaiting, grant }, 'pauses'),
    strictMock<ThreadPlanRepository>({ ownerOf: () => Promise.resolve('slack:U1') }, 'owners'),
    strictMock<RunNotifierService>({ announce }, 'notifier'),
    dispatchConfigOf(
      dispatchEnvSchema.parse(options.admins ? { DISPATCH_BUDGET_ADMINS: options.admins } : {}),
    ),
    { now: () => NOW },
  );
  return { service, grant, announce, listAwaiting };
}

describe('granting a paused run more budget from a reply', () => {
  it("sets the owner's grant on the thread's pause, so the run the reply starts continues it", async () => {
    const { service, grant, announce } = setup();

    expect(await service.onTrigger(reply('continue with $5 more'))).toBe('granted');

    expect(grant).toHaveBeenCalledWith({
      threadId: PAUSE.threadId,
      usd: 5,
      by: 'slack:U1',
      at: NOW,
    });
    expect(announce).not.toHaveBeenCalled();
  });

  it('takes a budget admin named in DISPATCH_BUDGET_ADMINS too', async () => {
    const { service, grant } = setup({ admins: 'github:octocat, slack:U9' });

    expect(await service.onTrigger(reply('5.50', 'U9'))).toBe('granted');
    expect(grant).toHaveBeenCalledWith(expect.objectContaining({ usd: 5.5, by: 'slack:U9' }));
  });

  it('refuses anyone else with a reply, and grants nothing', async () => {
    const { service, grant, announce } = setup();
    const trigger = reply('continue with $50 more', 'U7');

    expect(await service.onTrigger(trigger)).toBe('refused');

    expect(grant).not.toHaveBeenCalled();
    expect(announce).toHaveBeenCalledWith(
      PAUSE.threadId,
      expect.any(String),
      budgetGrantRefusedText('slack:U7'),
    );
  });

  it('leaves an ordinary message, or a grant on a thread with no pause, to dispatch', async () => {
    const { service, grant } = setup();
    expect(await service.onTrigger(reply('continue with 2 more tests', 'U7'))).toBe('none');
    const idle = setup({ paused: false });
    expect(await idle.service.onTrigger(reply('continue with $5 more', 'U7'))).toBe('none');
    expect(grant).not.toHaveBeenCalled();
    expect(idle.announce).not.toHaveBeenCalled();
  });

  it.each([
    ['ended', 'that run has ended since'],
    ['stopped', 'that run was stopped'],
    ['superseded', 'another run has worked on this thread since'],
  ] as const)(
    'refuses a grant for a pause whose run %s, with a reply, and resumes nothing',
    async (standing, why) => {
      const { service, grant, announce, listAwaiting } = setup({ standing });
      const trigger = reply('continue with $5 more');

      expect(await service.onTrigger(trigger)).toBe('refused');

      expect(listAwaiting).toHaveBeenCalledWith({
        threadId: PAUSE.threadId,
        ignoringTrigger: trigger.id,
        limit: 1,
      });
      expect(grant).not.toHaveBeenCalled();
      const text = stalePauseText(standing, PAUSE.budgetUsd);
      expect(text).toContain(why);
      expect(announce).toHaveBeenCalledWith(PAUSE.threadId, expect.any(String), text);
    },
  );

  it('tells someone who may not grant that first, even when the pause is stale', async () => {
    const { service, announce } = setup({ standing: 'superseded' });
    expect(await service.onTrigger(reply('continue with $5 more', 'U7'))).toBe('refused');
    expect(announce).toHaveBeenCalledWith(
      PAUSE.threadId,
      expect.any(String),
      budgetGrantRefusedText('slack:U7'),
    );
  });
});
