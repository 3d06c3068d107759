import type { DashboardConfig } from '../dashboard.config.js';
import type { AuthRequest } from './session.types.js';

function header(request: AuthRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Which origins the dashboard trusts: its own (DASHBOARD_PUBLIC_URL, or the scheme and Host the
 * request came in on) and the configured DASHBOARD_ALLOWED_ORIGINS. A cookie-authenticated
 * mutation must come from one of them; a missing or `null` Origin is refused, since a browser
 * sends one on every cross-origin and same-origin POST, PUT and DELETE.
 */
export class OriginPolicy {
  private readonly allowed: ReadonlySet<string>;

  constructor(private readonly origins: DashboardConfig['origins']) {
    this.allowed = new Set(origins.allowed);
  }

  /** The dashboard's own origin for this request. */
  ownOrigin(request: AuthRequest): string {
    if (this.origins.publicUrl) return this.origins.publicUrl;
    return `${request.protocol ?? 'http'}://${header(request, 'host') ?? '127.0.0.1'}`;
  }

  /** True when the request's Origin is the dashboard's own or an allowed one. */
  trusted(request: AuthRequest): boolean {
    const origin = header(request, 'origin');
    if (!origin || origin === 'null') return false;
    return origin === this.ownOrigin(request) || this.allowed.has(origin);
  }

  /** The origin credentialed CORS answers for, or null (no CORS headers at all). */
  corsOrigin(request: AuthRequest): string | null {
    const origin = header(request, 'origin');
    return origin && this.allowed.has(origin) ? origin : null;
  }
}
