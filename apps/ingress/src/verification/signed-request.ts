import { signatureInvalid } from '../ingress.errors.js';
import { hmacSha256Hex, matchesAnySecret, secretsOf } from './constant-time.js';

/** Where a source's body signature is and how it is written. */
export interface BodySignatureScheme {
  /** The setting that holds the secret, named when it is unset. */
  readonly setting: string;
  /** The header the signature comes in, named when it is missing. */
  readonly header: string;
  /** What precedes the hex digest (`sha256=`; empty for none). */
  readonly prefix: string;
}

/**
 * A body signature: `prefix` + hex HMAC-SHA256 of the raw body, under the secret or, while it
 * rotates, the previous one. Fails closed: an unset secret or a missing header is a rejection.
 */
export function verifyBodySignature(
  source: string,
  scheme: BodySignatureScheme,
  rawBody: Buffer,
  signature: string | undefined,
  secret: { current: string | undefined; previous?: string | undefined },
): void {
  if (!secret.current) throw signatureInvalid(source, `${scheme.setting} is not configured`);
  if (!signature) throw signatureInvalid(source, `${scheme.header} is missing`);
  const expectedFor = (key: string) => `${scheme.prefix}${hmacSha256Hex(key, rawBody)}`;
  const secrets = secretsOf(secret.current, secret.previous);
  if (!matchesAnySecret(secrets, expectedFor, signature.toLowerCase())) {
    throw signatureInvalid(source, 'signature does not match');
  }
}

/**
 * A signed request's Unix timestamp (seconds, as its header carries it): a number within
 * `maxSkewSeconds` of `now`, or a rejection (an old request replayed, or a clock far off).
 */
export function checkSignedTimestamp(
  source: string,
  timestamp: string,
  now: Date,
  maxSkewSeconds: number,
): void {
  if (!/^\d{1,12}$/.test(timestamp)) throw signatureInvalid(source, 'timestamp is not a number');
  const skew = Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp));
  if (skew > maxSkewSeconds) {
    throw signatureInvalid(source, `timestamp is ${skew} s away from now`);
  }
}
