import { describe, expect, it } from '@jest/globals';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, ReadGuard } from '../auth/guards.js';
import { declaredAs, servedAs } from '../testing/served-route.js';
import { EvalSchedulesController } from './evals-schedules.controller.js';

const guardsOf = (method: keyof EvalSchedulesController) =>
  Reflect.getMetadata(GUARDS_METADATA, EvalSchedulesController.prototype[method]) as unknown[];

describe('/api/evals/schedules', () => {
  it('lets readers list schedules and read their history, and only admins register or change one', () => {
    expect(guardsOf('list')).toEqual([ReadGuard]);
    expect(guardsOf('history')).toEqual([ReadGuard]);
    expect(guardsOf('register')).toEqual([AdminGuard]);
    expect(guardsOf('change')).toEqual([AdminGuard]);
  });

  it('serves each handler at the method, path and status its route declares', () => {
    expect(servedAs(EvalSchedulesController, 'list')).toBe(declaredAs(ROUTES.listEvalSchedules));
    expect(servedAs(EvalSchedulesController, 'register')).toBe('post api/evals/schedules 201');
    expect(servedAs(EvalSchedulesController, 'register')).toBe(
      declaredAs(ROUTES.registerEvalSchedule),
    );
    expect(servedAs(EvalSchedulesController, 'change')).toBe(declaredAs(ROUTES.changeEvalSchedule));
    expect(servedAs(EvalSchedulesController, 'history')).toBe(
      declaredAs(ROUTES.evalScheduleHistory),
    );
  });
});
