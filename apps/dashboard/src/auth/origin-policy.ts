import { isIP } from 'node:net';
import type { DashboardConfig } from '../dashboard.config.js';
import type { AuthRequest } from './session.types.js';

/** `example.com:3000` -> `example.com`, `[::1]:3000` -> `::1` (lower case). */
function hostnameOf(host: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed?.[1]) return bracketed[1].toLowerCase();
  return host.replace(/:\d+$/, '').toLowerCase();
}

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

  /**
   * True when the request's Host is a name no other site's DNS can give this port: an IP address,
   * `localhost` (browsers resolve it to loopback themselves; not its subdomains, which not every
   * browser keeps from DNS), or the host of
   * DASHBOARD_PUBLIC_URL. A page of another site whose name it pointed here (DNS rebinding) is
   * same-origin with the answers, so an open dashboard answers it nothing.
   */
  unspoofableHost(request: AuthRequest): boolean {
    const hostname = hostnameOf(header(request, 'host') ?? '');
    if (hostname === '') return false;
    if (isIP(hostname) !== 0 || hostname === 'localhost') return true;
    return (
      this.origins.publicUrl !== undefined && new URL(this.origins.publicUrl).hostname === hostname
    );
  }

  /** The origin credentialed CORS answers for, or null (no CORS headers at all). */
  corsOrigin(request: AuthRequest): string | null {
    const origin = header(request, 'origin');
    return origin && this.allowed.has(origin) ? origin : null;
  }
}
