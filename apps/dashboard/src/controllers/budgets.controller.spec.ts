import { describe, expect, it } from '@jest/globals';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, ReadGuard } from '../auth/guards.js';
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
});
