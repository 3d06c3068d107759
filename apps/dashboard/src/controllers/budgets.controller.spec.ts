import { describe, expect, it } from '@jest/globals';
import type { BudgetLimitRow } from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, ReadGuard } from '../auth/guards.js';
import type { BudgetsService } from '../services/budgets.service.js';
import { personCaller } from '../testing/callers.js';
import { visibleOnGitHub } from '../testing/visible-threads.js';
import { BudgetsController } from './budgets.controller.js';

const guardsOf = (method: keyof BudgetsController) =>
  Reflect.getMetadata(GUARDS_METADATA, BudgetsController.prototype[method]) as unknown[];

describe('/api/budgets', () => {
  it('lets readers list limits and paused runs, and only admins set or remove a limit', () => {
    expect(guardsOf('list')).toEqual([ReadGuard]);
    expect(guardsOf('pauses')).toEqual([ReadGuard]);
    expect(guardsOf('save')).toEqual([AdminGuard]);
    expect(guardsOf('remove')).toEqual([AdminGuard]);
    expect(
      [ROUTES.budgets, ROUTES.budgetsPauses, ROUTES.budgetsSave, ROUTES.budgetsRemove].map(
        (r) => `${r.method} ${r.path} ${r.access}`,
      ),
    ).toEqual([
      'get /api/budgets read',
      'get /api/budgets/pauses read',
      'put /api/budgets/{scope} admin',
      'delete /api/budgets/{scope} admin',
    ]);
  });

  it('lists to a member the team and person limits, and only the repository limits they may see', async () => {
    const limit = (scope: BudgetLimitRow['scope'], subject: string) =>
      ({ scope, subject, budgetUsd: 5 }) as BudgetLimitRow;
    const limits = [
      limit('team', 'team'),
      limit('repository', 'acme/web'),
      limit('repository', 'acme/payroll'),
      limit('person', 'slack:U1'),
    ];
    const controller = new BudgetsController(
      strictMock<BudgetsService>({ list: async () => limits }, 'budgets'),
      visibleOnGitHub(['acme/web']),
    );

    expect((await controller.list(personCaller('octocat'))).map((l) => l.subject)).toEqual([
      'team',
      'acme/web',
      'slack:U1',
    ]);
    expect(await controller.list(personCaller('hubot', 'admin'))).toEqual(limits);
  });
});
