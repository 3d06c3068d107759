import { AppError } from '@caravel/errors';
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { DASHBOARD_SETTINGS, type DashboardSettings } from '../dashboard.settings.js';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Lets a dashboard action through only with `Authorization: Bearer <DASHBOARD_TOKEN>`, compared
 * in constant time (as digests, so the length leaks nothing either). Fails closed: with no token
 * configured every action is refused, since an action runs commands in a thread's sandbox.
 */
@Injectable()
export class ActionTokenGuard implements CanActivate {
  constructor(@Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.settings.DASHBOARD_TOKEN;
    if (!expected) {
      throw new AppError(
        'FORBIDDEN',
        'dashboard actions are off: set DASHBOARD_TOKEN to enable them',
      );
    }
    const header = context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>()
      .headers['authorization'];
    const presented = typeof header === 'string' ? header.replace(/^Bearer\s+/i, '') : '';
    if (!timingSafeEqual(digest(expected), digest(presented))) {
      throw new AppError(
        'UNAUTHENTICATED',
        'a valid dashboard token is required (Authorization: Bearer …)',
      );
    }
    return true;
  }
}
