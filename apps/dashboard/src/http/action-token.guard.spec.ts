import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import type { ExecutionContext } from '@nestjs/common';
import { ActionTokenGuard } from './action-token.guard.js';

function request(authorization?: string): ExecutionContext {
  const headers = authorization === undefined ? {} : { authorization };
  const http = strictMock<ReturnType<ExecutionContext['switchToHttp']>>(
    { getRequest: <T>() => ({ headers }) as T },
    'http',
  );
  return strictMock<ExecutionContext>({ switchToHttp: () => http }, 'context');
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return isAppError(error) ? error.code : 'not coded';
  }
}

describe('ActionTokenGuard', () => {
  const token = 'a-long-enough-dashboard-token';

  it('lets the configured bearer token through', () => {
    expect(
      new ActionTokenGuard({ DASHBOARD_TOKEN: token }).canActivate(request(`Bearer ${token}`)),
    ).toBe(true);
  });

  it('refuses a missing, wrong or partial token', () => {
    const guard = new ActionTokenGuard({ DASHBOARD_TOKEN: token });
    expect(codeOf(() => guard.canActivate(request()))).toBe('UNAUTHENTICATED');
    expect(codeOf(() => guard.canActivate(request('Bearer nope')))).toBe('UNAUTHENTICATED');
    expect(codeOf(() => guard.canActivate(request(`Bearer ${token.slice(0, -1)}`)))).toBe(
      'UNAUTHENTICATED',
    );
  });

  it('fails closed when no token is configured: actions run commands in sandboxes', () => {
    const guard = new ActionTokenGuard({});
    expect(codeOf(() => guard.canActivate(request(`Bearer ${token}`)))).toBe('FORBIDDEN');
  });
});
