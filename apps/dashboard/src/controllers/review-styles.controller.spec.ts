import { describe, expect, it } from '@jest/globals';
import type { ReviewStyleSummaryRow } from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, ReadGuard } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { personCaller } from '../testing/callers.js';
import { declaredAs, servedAs } from '../testing/served-route.js';
import type { ReviewStylesService } from '../services/review-styles.service.js';
import { visibleOnGitHub } from '../testing/visible-threads.js';
import { ReviewStylesController } from './review-styles.controller.js';

const guardsOf = (method: keyof ReviewStylesController) =>
  Reflect.getMetadata(GUARDS_METADATA, ReviewStylesController.prototype[method]) as unknown[];

const admin: Caller = { kind: 'machine' };
const PROMPT = 'Name the missing test; never nitpick formatting.';

/** The controller over `styles`, where a member may see `acme/web` and nothing else. */
function controllerOver(styles: Partial<ReviewStylesService>): ReviewStylesController {
  return new ReviewStylesController(
    strictMock<ReviewStylesService>(styles, 'styles'),
    visibleOnGitHub(['acme/web']),
  );
}

const summary = (repository: string) => ({ repository, version: 1 }) as ReviewStyleSummaryRow;

describe('/api/review-styles', () => {
  it('lets readers list, read the history and a version, and only admins bootstrap or propose an edit', () => {
    expect(guardsOf('list')).toEqual([ReadGuard]);
    expect(guardsOf('history')).toEqual([ReadGuard]);
    expect(guardsOf('version')).toEqual([ReadGuard]);
    expect(guardsOf('analyze')).toEqual([AdminGuard]);
    expect(guardsOf('propose')).toEqual([AdminGuard]);
    const routes = [
      ROUTES.listReviewStyles,
      ROUTES.reviewStyleHistory,
      ROUTES.reviewStyleVersion,
      ROUTES.proposeReviewStyle,
    ];
    expect(routes.map((r) => `${r.method} ${r.path} ${r.access}`)).toEqual([
      'get /api/review-styles read',
      'get /api/review-styles/{owner}/{name} read',
      'get /api/review-styles/{owner}/{name}/versions/{version} read',
      'post /api/review-styles/{owner}/{name}/proposals admin',
    ]);
  });

  it('serves each handler at the method, path and status its route declares', () => {
    expect(servedAs(ReviewStylesController, 'list')).toBe(declaredAs(ROUTES.listReviewStyles));
    expect(servedAs(ReviewStylesController, 'history')).toBe(declaredAs(ROUTES.reviewStyleHistory));
    expect(servedAs(ReviewStylesController, 'version')).toBe(declaredAs(ROUTES.reviewStyleVersion));
    expect(servedAs(ReviewStylesController, 'analyze')).toBe(
      'post api/review-styles/:owner/:name/analyze 202',
    );
    expect(servedAs(ReviewStylesController, 'analyze')).toBe(declaredAs(ROUTES.analyzeReviewStyle));
    expect(servedAs(ReviewStylesController, 'propose')).toBe(declaredAs(ROUTES.proposeReviewStyle));
  });

  it('refuses a malformed edit with a 400 naming the field, before the service', async () => {
    const controller = controllerOver({});
    const params = { owner: 'acme', name: 'widgets' };
    const propose = (body: unknown, where = params) =>
      Promise.resolve().then(() => controller.propose(where, body, admin));
    const refused = (body: unknown, where = params) =>
      expect(propose(body, where)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await refused({ suite: 'sample' });
    await refused({ prompt: 'too short', suite: 'sample' });
    await refused({ prompt: 'x'.repeat(20_001), suite: 'sample' });
    await refused({ prompt: `${PROMPT}\u0000`, suite: 'sample' });
    await refused({ prompt: PROMPT, suite: '../sets' });
    await refused({ prompt: PROMPT, suite: 'sample', live: true });
    await refused({ prompt: PROMPT, suite: 'sample' }, { owner: 'acme', name: 'a b' });
    await expect(propose({ prompt: 'x' })).rejects.toThrow(
      /invalid style edit: prompt: at least 20 characters; suite:/,
    );
  });

  it('reads a version by its number, refusing one that is not a whole number', async () => {
    const asked: unknown[] = [];
    const controller = controllerOver({
      version: (...args) => {
        asked.push(args);
        return Promise.reject(new Error('stop'));
      },
    });
    await expect(
      controller.version({ owner: 'acme', name: 'widgets', version: 'latest' }, admin),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(
      controller.version({ owner: 'acme', name: 'widgets', version: '2' }, admin),
    ).rejects.toThrow('stop');
    expect(asked).toEqual([['acme', 'widgets', 2]]);
  });

  it('lists to a member only the styles of repositories GitHub lets them see', async () => {
    const controller = controllerOver({
      list: async () => [summary('acme/web'), summary('acme/payroll')],
    });

    expect((await controller.list(personCaller('octocat'))).map((s) => s.repository)).toEqual([
      'acme/web',
    ]);
    expect((await controller.list(personCaller('hubot', 'admin'))).length).toBe(2);
  });

  it("answers a member's read of another repository's style as a missing one, before the service", async () => {
    const controller = controllerOver({});
    const member = personCaller('octocat');
    const payroll = { owner: 'Acme', name: 'Payroll' };

    await expect(controller.history(payroll, {}, member)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'acme/payroll has no review style',
    });
    await expect(controller.version({ ...payroll, version: '1' }, member)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Acme/Payroll has no review style version 1',
    });
  });

  it('reads the history of a repository the member may see', async () => {
    const asked: unknown[] = [];
    const controller = controllerOver({
      history: async (...args) => {
        asked.push(args);
        return { repository: 'acme/web', versions: [], proposals: [] };
      },
    });

    await expect(
      controller.history({ owner: 'acme', name: 'web' }, { limit: '3' }, personCaller('octocat')),
    ).resolves.toMatchObject({ repository: 'acme/web' });
    expect(asked).toEqual([['acme', 'web', 3]]);
  });
});
