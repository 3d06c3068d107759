/** The session cookie: the sealed {@link Session}. */
export const SESSION_COOKIE = 'caravel_session';
/** The sign-in nonce cookie: binds the OAuth `state` to the browser that started the sign-in. */
export const OAUTH_COOKIE = 'caravel_oauth';

/** Cookie name -> value from a `Cookie` header (the first of a repeated name wins). */
export function parseCookies(header: string | string[] | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  const text = Array.isArray(header) ? header.join('; ') : (header ?? '');
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  path: string;
  secure: boolean;
}

/**
 * A `Set-Cookie` value: always HttpOnly (no script reads it) and SameSite=Lax (sent on the
 * top-level redirect back from GitHub, never on a cross-site subresource or POST).
 */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [
    `${name}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
