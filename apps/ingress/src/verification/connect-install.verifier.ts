import { verify, type KeyObject } from 'node:crypto';
import { signatureInvalid } from '../ingress.errors.js';
import { constantTimeEqual } from './constant-time.js';
import { queryStringHash, type ConnectRequest } from './connect-jwt.verifier.js';

/** Finds Atlassian's public key for a `kid`; rejects when there is none. */
export type InstallKeyResolver = (kid: string) => Promise<KeyObject>;

/** What a verified install or uninstall callback asserts. */
export interface InstallClaims {
  /** The tenant's `clientKey`. */
  iss: string;
  exp: number;
}

/** What the callback must be bound to. */
export interface InstallExpectation {
  /** Our base URL: the token's `aud` must name it. */
  audience: string;
  request: ConnectRequest;
  now: Date;
}

/** Key ids are opaque, but they end up in a URL path: no `/`, `..` or anything odd. */
const KID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

const refuse = (reason: string) => signatureInvalid('confluence install', reason);

function decode(part: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // refused below
  }
  throw refuse('the JWT is not three base64url JSON parts');
}

function audienceMatches(aud: unknown, audience: string): boolean {
  const trim = (value: string) => value.replace(/\/+$/, '');
  const wanted = trim(audience);
  const list = Array.isArray(aud) ? aud : [aud];
  return list.some((entry) => typeof entry === 'string' && trim(entry) === wanted);
}

/**
 * Verifies a signed install/uninstall callback (Connect's `signed-install`): RS256 only, signed by
 * the Atlassian key its `kid` names (fetched by `keys`, never taken from the token), not expired,
 * addressed to our base URL (`aud`), and bound to this request (`qsh`). The algorithm is checked
 * before any key is fetched, so `none` or an HMAC token never reaches the resolver.
 */
export async function verifyInstallJwt(
  token: string,
  keys: InstallKeyResolver,
  expected: InstallExpectation,
): Promise<InstallClaims> {
  const parts = token.split('.');
  if (parts.length !== 3) throw refuse('the JWT is not three parts');
  const [header = '', payload = '', signature = ''] = parts;
  const { alg, kid } = decode(header);
  if (alg !== 'RS256') throw refuse('install callbacks must be RS256-signed');
  if (typeof kid !== 'string' || !KID.test(kid)) throw refuse('the JWT names no usable kid');
  let key: KeyObject;
  try {
    key = await keys(kid);
  } catch {
    throw refuse(`no Atlassian public key for kid ${kid}`);
  }
  const signed = Buffer.from(`${header}.${payload}`);
  if (!verify('sha256', signed, key, Buffer.from(signature, 'base64url'))) {
    throw refuse('JWT signature does not match');
  }
  const { iss, exp, aud, qsh } = decode(payload);
  if (typeof iss !== 'string' || iss === '' || typeof exp !== 'number' || typeof qsh !== 'string') {
    throw refuse('the JWT lacks iss, exp or qsh');
  }
  if (exp <= Math.floor(expected.now.getTime() / 1000)) throw refuse('the JWT has expired');
  if (!audienceMatches(aud, expected.audience)) throw refuse('the JWT is for another app (aud)');
  if (!constantTimeEqual(queryStringHash(expected.request), qsh)) {
    throw refuse('the JWT was issued for another request (qsh)');
  }
  return { iss, exp };
}
