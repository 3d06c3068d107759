import { describe, expect, it } from '@jest/globals';
import type { EvalProposalRow } from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, ReadGuard } from '../auth/guards.js';
import type { EvalsService } from '../services/evals.service.js';
import { personCaller } from '../testing/callers.js';
import { declaredAs, servedAs } from '../testing/served-route.js';
import { visibleOnGitHub } from '../testing/visible-threads.js';
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

  it('serves each handler at the method, path and status its route declares', () => {
    expect(servedAs(EvalsController, 'listRuns')).toBe(declaredAs(ROUTES.listEvalRuns));
    expect(servedAs(EvalsController, 'run')).toBe(declaredAs(ROUTES.evalRun));
    expect(servedAs(EvalsController, 'listProposals')).toBe(declaredAs(ROUTES.listEvalProposals));
    expect(servedAs(EvalsController, 'propose')).toBe('post api/evals/proposals 201');
    expect(declaredAs(ROUTES.proposeEvalChange)).toBe('post api/evals/proposals 201');
  });

  it("shows a member a review style's proposal only where they may see its repository", async () => {
    const proposal = (id: string, repository: string | null) =>
      ({ id, kind: repository ? 'review-style' : 'config', repository }) as EvalProposalRow;
    const controller = new EvalsController(
      strictMock<EvalsService>(
        {
          listProposals: async () => [
            proposal('model', null),
            proposal('web', 'acme/web'),
            proposal('payroll', 'acme/payroll'),
          ],
        },
        'evals',
      ),
      visibleOnGitHub(['acme/web']),
    );
    const ids = async (login: string, role: 'admin' | 'member') =>
      (await controller.listProposals({}, personCaller(login, role))).map((p) => p.id);

    expect(await ids('octocat', 'member')).toEqual(['model', 'web']);
    expect(await ids('hubot', 'admin')).toEqual(['model', 'web', 'payroll']);
  });
});
