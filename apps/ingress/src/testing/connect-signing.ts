import { createHmac, sign, type KeyObject } from 'node:crypto';
import { queryStringHash } from '../verification/connect-jwt.verifier.js';

/** Test helpers that sign Atlassian Connect JWTs the way Atlassian does. */
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The `qsh` of a request with no query. */
export const connectQsh = (method: string, path: string): string =>
  queryStringHash({ method, path, query: new URLSearchParams() });

/** An install-style token: RS256 with the key `kid` names. */
export function rs256(claims: Record<string, unknown>, key: KeyObject, kid = 'kid-1'): string {
  const head = `${b64({ alg: 'RS256', kid, typ: 'JWT' })}.${b64(claims)}`;
  return `${head}.${sign('sha256', Buffer.from(head), key).toString('base64url')}`;
}

/** A tenant's token: HS256 with its shared secret. */
export function hs256(claims: Record<string, unknown>, secret: string): string {
  const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
}

/** An `alg: none` token with no signature. */
export const unsignedJwt = (claims: Record<string, unknown>): string =>
  `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
