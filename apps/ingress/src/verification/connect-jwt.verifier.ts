import { createHash, createHmac } from 'node:crypto';
import { signatureInvalid } from '../ingress.errors.js';
import { constantTimeEqual } from './constant-time.js';

/** The request a Connect JWT must be bound to, as the app received it. */
export interface ConnectRequest {
  method: string;
  /** The path as received, e.g. `/connect/comment-created` (no query). */
  path: string;
  query: URLSearchParams;
  /** The app's base URL path the product does not see as part of the resource (default none). */
  contextPath?: string;
}

/** The claims Caravel reads from a verified Connect JWT. */
export interface ConnectClaims {
  /** The tenant's `clientKey`. */
  iss: string;
  exp: number;
  iat: number;
  qsh: string;
  sub?: string;
}

/** RFC 3986 unreserved characters stay; everything else is %XX (space is %20, `*` is %2A). */
function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function canonicalPath(path: string, contextPath = ''): string {
  const context = contextPath.replace(/\/$/, '');
  let resource = context && path.startsWith(context) ? path.slice(context.length) : path;
  if (!resource.startsWith('/')) resource = `/${resource}`;
  if (resource.length > 1) resource = resource.replace(/\/+$/, '');
  return resource.replace(/&/g, '%26') || '/';
}

/**
 * Keys sorted, a repeated key's values sorted and comma-joined. Both sorts compare the *decoded*
 * strings (UTF-16 code units, as Atlassian's Java and JS signers do), and only then is each part
 * percent-encoded: `ids=%3A1&ids=.1` canonicalises to `ids=.1,%3A1` (`.` < `:`), whereas sorting
 * the encoded forms would put `%3A1` first and refuse a genuine request.
 */
function canonicalQuery(query: URLSearchParams): string {
  const byKey = new Map<string, string[]>();
  for (const [key, value] of query) {
    if (key === 'jwt') continue;
    byKey.set(key, [...(byKey.get(key) ?? []), value]);
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => byCodeUnits(a, b))
    .map(([key, values]) => {
      const joined = [...values].sort(byCodeUnits).map(encodeRfc3986).join(',');
      return `${encodeRfc3986(key)}=${joined}`;
    })
    .join('&');
}

function byCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/**
 * Splits a request target (`req.originalUrl`) at its *first* `?` into the path and the query
 * string; a `?` inside the query is data, not a second separator.
 */
export function splitRequestTarget(target: string): { path: string; query: URLSearchParams } {
  const at = target.indexOf('?');
  if (at < 0) return { path: target || '/', query: new URLSearchParams() };
  return { path: target.slice(0, at) || '/', query: new URLSearchParams(target.slice(at + 1)) };
}

/**
 * Atlassian's canonical request: upper-case method, the path relative to the app (always
 * starting with `/`, no trailing `/`, `&` escaped), and the query without `jwt`, keys sorted,
 * repeated values sorted and comma-joined, all percent-encoded per RFC 3986; joined with `&`.
 */
export function canonicalRequest(request: ConnectRequest): string {
  return [
    request.method.toUpperCase(),
    canonicalPath(request.path, request.contextPath),
    canonicalQuery(request.query),
  ].join('&');
}

/** The `qsh` claim for a request: hex SHA-256 of its canonical form. */
export function queryStringHash(request: ConnectRequest): string {
  return createHash('sha256').update(canonicalRequest(request)).digest('hex');
}

function decodePart(part: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // falls through to the refusal below
  }
  throw signatureInvalid('confluence', 'the JWT is not three base64url JSON parts');
}

/** The unverified issuer (`clientKey`) of a Connect JWT, to look its shared secret up by. */
export function connectJwtIssuer(token: string): string {
  const [, payload] = token.split('.');
  const iss = decodePart(payload ?? '')['iss'];
  if (typeof iss !== 'string' || iss === '') throw signatureInvalid('confluence', 'no iss claim');
  return iss;
}

/**
 * Verifies a Connect JWT the product signed with the tenant's shared secret: HS256 only (`none`
 * and every other algorithm are refused before any key is used), a valid signature, an
 * unexpired `exp`, and a `qsh` equal to the hash of the request actually received.
 */
export function verifyConnectJwt(
  token: string,
  sharedSecret: string,
  request: ConnectRequest,
  now: Date,
): ConnectClaims {
  const parts = token.split('.');
  if (parts.length !== 3) throw signatureInvalid('confluence', 'the JWT is not three parts');
  const [header = '', payload = '', signature = ''] = parts;
  if (decodePart(header)['alg'] !== 'HS256') {
    throw signatureInvalid('confluence', 'only HS256 Connect JWTs are accepted');
  }
  const expected = createHmac('sha256', sharedSecret)
    .update(`${header}.${payload}`)
    .digest('base64url');
  if (!constantTimeEqual(expected, signature)) {
    throw signatureInvalid('confluence', 'JWT signature does not match');
  }
  const claims = decodePart(payload);
  const { iss, exp, iat, qsh, sub } = claims;
  if (typeof iss !== 'string' || typeof exp !== 'number' || typeof qsh !== 'string') {
    throw signatureInvalid('confluence', 'the JWT lacks iss, exp or qsh');
  }
  if (exp <= Math.floor(now.getTime() / 1000)) {
    throw signatureInvalid('confluence', 'the JWT has expired');
  }
  if (!constantTimeEqual(queryStringHash(request), qsh)) {
    throw signatureInvalid('confluence', 'the JWT was issued for another request (qsh)');
  }
  return {
    iss,
    exp,
    iat: typeof iat === 'number' ? iat : 0,
    qsh,
    ...(typeof sub === 'string' ? { sub } : {}),
  };
}
