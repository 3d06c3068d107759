import { RequestMethod } from '@nestjs/common';
import {
  GUARDS_METADATA,
  HTTP_CODE_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
} from '@nestjs/common/constants.js';
import { AdminGuard, ReadGuard } from '../auth/guards.js';
import { ApiRoute, nestPathOf } from './api-route.js';
import { ROUTES } from './routes.js';

class Routes {
  @ApiRoute(ROUTES.budgetsRemove)
  remove(): void {}

  @ApiRoute(ROUTES.budgets)
  list(): void {}

  @ApiRoute(ROUTES.authStatus)
  status(): void {}
}

const metadata = (key: string, handler: () => void): unknown => Reflect.getMetadata(key, handler);

describe('ApiRoute', () => {
  it('serves the route at its whole path, with its method, guard and status', () => {
    const handler = Routes.prototype.remove;
    expect(metadata(PATH_METADATA, handler)).toBe('api/budgets/:scope');
    expect(metadata(METHOD_METADATA, handler)).toBe(RequestMethod.DELETE);
    expect(metadata(GUARDS_METADATA, handler)).toEqual([AdminGuard]);
    expect(metadata(HTTP_CODE_METADATA, handler)).toBe(204);
  });

  it("leaves the status to Nest when the route names none, and a reader's route to the ReadGuard", () => {
    expect(metadata(HTTP_CODE_METADATA, Routes.prototype.list)).toBeUndefined();
    expect(metadata(GUARDS_METADATA, Routes.prototype.list)).toEqual([ReadGuard]);
  });

  it('puts no guard on a public route', () => {
    expect(metadata(GUARDS_METADATA, Routes.prototype.status)).toBeUndefined();
  });

  it('turns every OpenAPI parameter into a Nest one', () => {
    expect(nestPathOf({ path: '/api/repositories/{owner}/{name}' })).toBe(
      'api/repositories/:owner/:name',
    );
  });
});
