import { describe, expect, it } from '@jest/globals';
import { strictMock } from '@caravel/testing/doubles';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, ReadGuard } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { declaredAs, servedAs } from '../testing/served-route.js';
import type { ReviewStylesService } from '../services/review-styles.service.js';
import { ReviewStylesController } from './review-styles.controller.js';

const guardsOf = (method: keyof ReviewStylesController) =>
  Reflect.getMetadata(GUARDS_METADATA, ReviewStylesController.prototype[method]) as unknown[];

const admin: Caller = { kind: 'machine' };
const PROMPT = 'Name the missing test; never nitpick formatting.';

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
    const controller = new ReviewStylesController(strictMock<ReviewStylesService>({}));
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
    const controller = new ReviewStylesController(
      strictMock<ReviewStylesService>({
        version: (...args) => {
          asked.push(args);
          return Promise.reject(new Error('stop'));
        },
      }),
    );
    expect(() => controller.version({ owner: 'acme', name: 'widgets', version: 'latest' })).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST' }),
    );
    await expect(
      controller.version({ owner: 'acme', name: 'widgets', version: '2' }),
    ).rejects.toThrow('stop');
    expect(asked).toEqual([['acme', 'widgets', 2]]);
  });
});
