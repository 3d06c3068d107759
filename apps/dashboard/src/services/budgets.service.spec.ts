import type {
  AwaitingBudgetPause,
  BudgetLimitRepository,
  BudgetLimitRow,
  BudgetPauseRepository,
  BudgetScope,
  ThreadPlanRepository,
} from '@caravel/db';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import type { Caller } from '../auth/session.types.js';
import { dashboardConfigFrom } from '../dashboard.config.js';
import { budgetSubjectOf, BudgetsService } from './budgets.service.js';

const NOW = new Date('2026-12-02T12:00:00Z');
const admin: Caller = {
  kind: 'person',
  session: { login: 'octo', githubId: 1, name: null, avatarUrl: null, role: 'admin', expiresAt: 0 },
};

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

function pause(overrides: Partial<AwaitingBudgetPause> = {}): AwaitingBudgetPause {
  return {
    runId: randomUUID(),
    threadId: randomUUID(),
    budgetUsd: 2.5,
    spentUsd: 2.1,
    pausedAt: NOW,
    grantedUsd: null,
    grantedBy: null,
    grantedAt: null,
    resumedBy: null,
    withdrawnAt: null,
    withdrawnBy: null,
    standing: 'open',
    supersededBy: null,
    ...overrides,
  };
}

/** The service over strict doubles: only what a case names may be called. */
function service(
  doubles: {
    limits?: Partial<BudgetLimitRepository>;
    pauses?: Partial<BudgetPauseRepository>;
    owners?: Partial<ThreadPlanRepository>;
  },
  admins = '',
) {
  return new BudgetsService(
    strictMock<BudgetLimitRepository>(doubles.limits ?? {}, 'limits'),
    strictMock<BudgetPauseRepository>(doubles.pauses ?? {}, 'pauses'),
    strictMock<ThreadPlanRepository>(doubles.owners ?? {}, 'owners'),
    dashboardConfigFrom({ DISPATCH_BUDGET_ADMINS: admins }),
  );
}

describe('budget routes refuse bad input with a 400 naming it', () => {
  const save = ROUTES.budgetsSave;
  it.each([
    [
      { scope: 'galaxy' },
      { budgetUsd: 5 },
      'unknown budget scope "galaxy": team, repository or person',
    ],
    [{ scope: 'team' }, { budgetUsd: -1 }, 'budgetUsd must be more than 0'],
    [{ scope: 'team' }, { budgetUsd: 0 }, 'budgetUsd must be more than 0'],
    [{ scope: 'team' }, { budgetUsd: '5' }, 'budgetUsd must be a number of dollars'],
    [{ scope: 'team' }, { budgetUsd: 'lots' }, 'budgetUsd must be a number of dollars'],
    [{ scope: 'team' }, {}, 'budgetUsd must be a number of dollars'],
    [{ scope: 'team' }, { budgetUsd: 1e9 }, 'budgetUsd must be at most 100000'],
    [{ scope: 'team' }, { budgetUsd: 5, cap: 1 }, 'Unrecognized key: "cap"'],
  ])('%j %j', (params, body, problem) => {
    const { code, message } = refusal(() => {
      parseInput(save.params, params, 'budget scope');
      parseInput(save.body, body, 'budget');
    });
    expect(code).toBe('BAD_REQUEST');
    expect(message).toContain(problem);
  });

  it.each([
    ['team', undefined, 'team'],
    ['team', 'team', 'team'],
    ['repository', 'Acme/Widgets', 'acme/widgets'],
    ['person', 'slack:U0123ABCD', 'slack:U0123ABCD'],
  ] as const)('saves a %s limit for %s under %s', (scope, subject, saved) => {
    expect(budgetSubjectOf(scope, subject)).toBe(saved);
  });

  it.each([
    ['team', 'acme/widgets', "the team's budget takes no subject"],
    ['repository', undefined, 'a repository budget needs subject owner/name'],
    ['repository', 'acme', 'a repository budget needs subject owner/name'],
    ['person', 'octocat', 'a person budget needs subject source:id'],
    ['person', undefined, 'a person budget needs subject source:id'],
  ] as const)('refuses a %s limit for %s', (scope: BudgetScope, subject, problem) => {
    const { code, message } = refusal(() => budgetSubjectOf(scope, subject));
    expect(code).toBe('BAD_REQUEST');
    expect(message).toContain(problem);
  });
});

describe('BudgetsService', () => {
  it("saves a repository's limit under its lower-cased name, as the admin who set it", async () => {
    const save = jest.fn((limit: Omit<BudgetLimitRow, 'updatedAt'>) =>
      Promise.resolve({ ...limit, updatedAt: NOW }),
    );
    const saved = await service({ limits: { save } }).save(admin, 'repository', {
      subject: 'Acme/Widgets',
      budgetUsd: 4,
    });
    expect(save).toHaveBeenCalledWith({
      scope: 'repository',
      subject: 'acme/widgets',
      budgetUsd: 4,
      updatedBy: 'octo',
    });
    expect(saved.budgetUsd).toBe(4);
  });

  it('refuses a bad subject before it touches the database', async () => {
    await expect(
      service({}).save(admin, 'person', { subject: 'octocat', budgetUsd: 4 }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('says NOT_FOUND when there was no such limit to remove', async () => {
    const remove = jest.fn((_scope: string, _subject: string) => Promise.resolve(false));
    await expect(service({ limits: { remove } }).remove('team', undefined)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'no team budget for team',
    });
    expect(remove).toHaveBeenCalledWith('team', 'team');
  });

  it('lists only the open pauses, each with its owner then the budget admins who may grant', async () => {
    const open = pause();
    const orphan = pause({ grantedUsd: 5, grantedBy: 'slack:U1', grantedAt: NOW });
    const listAwaiting = jest.fn(() =>
      Promise.resolve([
        open,
        pause({ standing: 'superseded', supersededBy: randomUUID() }),
        pause({ standing: 'stopped' }),
        orphan,
      ]),
    );
    const ownerOf = jest.fn((threadId: string) =>
      Promise.resolve(threadId === open.threadId ? 'slack:U1' : null),
    );
    const listed = await service(
      { pauses: { listAwaiting }, owners: { ownerOf } },
      'slack:U1,github:octocat',
    ).pausesOpen();

    const { standing: _s, supersededBy: _b, resumedBy: _r, ...shown } = open;
    expect(listed).toEqual([
      { ...shown, mayGrant: ['slack:U1', 'github:octocat'] },
      expect.objectContaining({
        runId: orphan.runId,
        grantedUsd: 5,
        mayGrant: ['slack:U1', 'github:octocat'],
      }),
    ]);
  });
});
