import { AppError, type ErrorCode } from '@caravel/errors';

/** Where the dashboard is and the token it wants (the embedded host's, or the dashboard service's). */
export interface DashboardTarget {
  url: string;
  /** The dashboard's `DASHBOARD_TOKEN`. */
  token?: string;
}

/** The base URL without trailing slashes. */
export function dashboardBase(target: DashboardTarget): string {
  return target.url.replace(/\/+$/, '');
}

/** The token as an Authorization header, when there is one. */
export function authHeaders(target: DashboardTarget): Record<string, string> {
  return target.token ? { authorization: `Bearer ${target.token}` } : {};
}

/** What a refusal says, and for a 401 what to do about the token. */
export async function failureText(response: Response, token: string | undefined): Promise<string> {
  const body = (await response.json().catch(() => null)) as {
    message?: unknown;
    error?: { message?: unknown };
  } | null;
  const said = body?.error?.message ?? body?.message;
  const text = typeof said === 'string' ? said : `HTTP ${response.status}`;
  if (response.status !== 401) return text;
  return token
    ? `${text}; the dashboard refused this token: give it the dashboard's own DASHBOARD_TOKEN (DASHBOARD_TOKEN=… or --token)`
    : `${text}; the dashboard wants its token: set DASHBOARD_TOKEN, or pass --token`;
}

/**
 * Sends one request to the dashboard. A dashboard that does not answer is DEPENDENCY_UNAVAILABLE
 * naming the URL and what to do; the response is returned whatever its status.
 */
export function dashboardFetch(
  target: DashboardTarget,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  const base = dashboardBase(target);
  const headers = { ...authHeaders(target), ...(init.headers as Record<string, string>) };
  return fetch(`${base}${path}`, { ...init, headers }).catch((error: unknown) => {
    const reason = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    throw new AppError(
      'DEPENDENCY_UNAVAILABLE',
      `no dashboard answers at ${base} (${String(reason)}): is Caravel running? (caravel start, or --url)`,
    );
  });
}

/** The error code each refusal status becomes; any other status is INTERNAL. */
const REFUSALS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
};

/** The error a refused request becomes: its status's code, and what the dashboard said. */
export async function refusal(response: Response, target: DashboardTarget, what: string) {
  const text = await failureText(response, target.token);
  return new AppError(REFUSALS[response.status] ?? 'INTERNAL', `${what}: ${text}`);
}
