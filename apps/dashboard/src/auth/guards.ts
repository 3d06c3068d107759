import { AppError } from '@caravel/errors';
import {
  createParamDecorator,
  Inject,
  Injectable,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { DASHBOARD_CONFIG, type DashboardConfig } from '../dashboard.config.js';
import { CallerResolver } from './caller.resolver.js';
import { OriginPolicy } from './origin-policy.js';
import type { AuthRequest, Caller } from './session.types.js';
import { SignInService } from './sign-in.service.js';

function requestOf(context: ExecutionContext): AuthRequest {
  return context.switchToHttp().getRequest<AuthRequest>();
}

/** The caller a guard resolved for this request (null: nobody signed in, no token). */
export const CurrentCaller = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller | null => requestOf(context).caller ?? null,
);

function contentTypeOf(request: AuthRequest): string {
  const type = request.headers['content-type'];
  return (typeof type === 'string' ? (type.split(';')[0] ?? '') : '').trim().toLowerCase();
}

/**
 * Whether a change's body is JSON, or it has none (stop, a fresh sandbox, sign-out). A form or
 * text body is what another site's page can post without a CORS preflight: refused for a cookie,
 * it keeps such a page out even were the origin check misconfigured.
 */
function jsonOrNoBody(request: AuthRequest): boolean {
  const length = Number(request.headers['content-length'] ?? 0);
  const body = length > 0 || request.headers['transfer-encoding'] !== undefined;
  return !body || contentTypeOf(request) === 'application/json';
}

/**
 * What the read and action guards share: the caller is resolved and kept on the request (for
 * {@link CurrentCaller}), then `admit` decides; a request with no caller is judged by whether
 * any credential is configured at all.
 */
abstract class CallerGuard implements CanActivate {
  constructor(
    @Inject(CallerResolver) private readonly callers: CallerResolver,
    @Inject(SignInService) protected readonly signIn: SignInService,
    @Inject(OriginPolicy) protected readonly origins: OriginPolicy,
    @Inject(DASHBOARD_CONFIG) private readonly config: DashboardConfig,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    return this.check(requestOf(context));
  }

  /**
   * Judges `request` as the guard does (a long-lived answer, such as a thread's stream, asks again
   * before it sends more): its caller, kept on the request, admitted or refused with a coded error.
   */
  async check(request: AuthRequest): Promise<boolean> {
    request.caller = await this.callers.resolve(request);
    return this.admit(request, request.caller);
  }

  /** Whether sign-in or the machine token is configured: with neither, no request has a caller. */
  protected get anyCredential(): boolean {
    return this.signIn.enabled || Boolean(this.config.machineToken);
  }

  protected abstract admit(request: AuthRequest, caller: Caller | null): boolean;
}

/**
 * Reads: once any credential is configured (sign-in or the machine token), a session or the
 * token is required; a deployment that set only `DASHBOARD_TOKEN` for its scripts does not leave
 * every thread readable by anyone who reaches the port. With neither, the read API stays open (a
 * loopback install that never set up either, `caravel start`'s default), answered only at an
 * address no other site can claim (no DNS rebinding: {@link OriginPolicy.unspoofableHost}).
 */
@Injectable()
export class ReadGuard extends CallerGuard {
  protected admit(request: AuthRequest, caller: Caller | null): boolean {
    if (caller) return true;
    if (!this.anyCredential) return this.openRead(request);
    throw new AppError(
      'UNAUTHENTICATED',
      this.signIn.enabled
        ? 'sign in first (or send the dashboard token)'
        : 'a valid dashboard token is required (Authorization: Bearer …)',
    );
  }

  /** With no credential configured, a read answers only at an address of this dashboard's own. */
  private openRead(request: AuthRequest): boolean {
    if (this.origins.unspoofableHost(request)) return true;
    throw new AppError(
      'FORBIDDEN',
      `an open dashboard answers only at an IP address, localhost or DASHBOARD_PUBLIC_URL, not at ${String(request.headers['host'])}: set DASHBOARD_PUBLIC_URL, or sign-in or DASHBOARD_TOKEN`,
    );
  }
}

/**
 * Mutations: the machine token, or a signed-in person whose request comes from a trusted origin
 * (the same-origin check that stops another site's page from using the person's cookie) with a
 * JSON body or none. Fails closed: with neither sign-in nor a token configured every action is
 * refused, since an action runs commands in a thread's sandbox.
 */
@Injectable()
export class ActionGuard extends CallerGuard {
  protected admit(request: AuthRequest, caller: Caller | null): boolean {
    if (!caller) {
      if (!this.anyCredential) {
        throw new AppError(
          'FORBIDDEN',
          'dashboard actions are off: set DASHBOARD_TOKEN, or GitHub sign-in (GITHUB_OAUTH_CLIENT_ID)',
        );
      }
      throw new AppError(
        'UNAUTHENTICATED',
        'a valid dashboard token is required (Authorization: Bearer …), or sign in',
      );
    }
    if (caller.kind === 'person' && caller.token) {
      // A bearer token is not ambient (no browser sends it on its own): no origin to check.
      if (caller.token.scope !== 'act') {
        throw new AppError('FORBIDDEN', 'this token may only read: make one with the act scope');
      }
      return true;
    }
    if (caller.kind === 'person' && !this.origins.trusted(request)) {
      throw new AppError(
        'FORBIDDEN',
        'cross-origin request refused: a signed-in change must come from the dashboard itself',
      );
    }
    if (caller.kind === 'person' && !jsonOrNoBody(request)) {
      throw new AppError(
        'BAD_REQUEST',
        `a signed-in change takes a JSON body (Content-Type: application/json), not ${contentTypeOf(request) || 'none'}`,
      );
    }
    return true;
  }
}

/**
 * An {@link ActionGuard} that also wants the admin role (the machine token counts as admin). A
 * read (GET) is checked as a {@link ReadGuard} read instead: a browser sends no Origin on its own
 * page's same-origin GET, and a read changes nothing another site could use. It still wants a
 * caller: an admin route is never open.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    @Inject(ActionGuard) private readonly action: ActionGuard,
    @Inject(ReadGuard) private readonly read: ReadGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    if (request.method === 'GET' || request.method === 'HEAD') {
      await this.read.canActivate(context);
      if (!request.caller) {
        throw new AppError('FORBIDDEN', 'admin routes need a sign-in or the dashboard token');
      }
    } else {
      await this.action.canActivate(context);
    }
    const caller = request.caller;
    if (caller?.kind === 'person' && caller.token) {
      throw new AppError('FORBIDDEN', 'admin routes need a sign-in, not a personal token');
    }
    if (caller?.kind === 'person' && caller.session.role !== 'admin') {
      throw new AppError('FORBIDDEN', `${caller.session.login} is not a dashboard admin`);
    }
    return true;
  }
}
