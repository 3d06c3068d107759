import { describe, expect, it } from '@jest/globals';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, ReadGuard } from '../auth/guards.js';
import { EvalsController } from './evals.controller.js';

const guardsOf = (method: keyof EvalsController) =>
  Reflect.getMetadata(GUARDS_METADATA, EvalsController.prototype[method]) as unknown[];

describe('/api/evals', () => {
  it('lets readers list runs and proposals, and only admins propose a change', () => {
    expect(guardsOf('listRuns')).toEqual([ReadGuard]);
    expect(guardsOf('run')).toEqual([ReadGuard]);
    expect(guardsOf('listProposals')).toEqual([ReadGuard]);
    expect(guardsOf('propose')).toEqual([AdminGuard]);
    expect(
      [ROUTES.listEvalRuns, ROUTES.evalRun, ROUTES.listEvalProposals, ROUTES.proposeEvalChange].map(
        (r) => `${r.method} ${r.path} ${r.access}`,
      ),
    ).toEqual([
      'get /api/evals/runs read',
      'get /api/evals/runs/{id} read',
      'get /api/evals/proposals read',
      'post /api/evals/proposals admin',
    ]);
  });
});
