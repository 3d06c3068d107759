import { signatureInvalid } from '../ingress.errors.js';
import { hmacSha256Hex, matchesAnySecret, secretsOf } from './constant-time.js';
import { checkSignedTimestamp } from './signed-request.js';

/** How far a request's timestamp may be from our clock, either way (Slack says 5 minutes). */
export const SLACK_MAX_SKEW_SECONDS = 300;

export interface SlackSignatureHeaders {
  signature: string | undefined;
  timestamp: string | undefined;
}

/**
 * Slack's v0 signing: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<raw body>`, with the timestamp
 * no more than five minutes from `now` in either direction (a future one is as suspect as an old
 * one). Fails closed on an unset secret or a missing header. While the secret rotates,
 * `previous` is accepted too.
 */
export function verifySlackSignature(
  rawBody: Buffer,
  headers: SlackSignatureHeaders,
  secret: string | undefined,
  now: Date,
  previous?: string,
): void {
  if (!secret) throw signatureInvalid('slack', 'SLACK_SIGNING_SECRET is not configured');
  const { signature, timestamp } = headers;
  if (!signature || !timestamp) {
    throw signatureInvalid('slack', 'X-Slack-Signature or X-Slack-Request-Timestamp is missing');
  }
  checkSignedTimestamp('slack', timestamp, now, SLACK_MAX_SKEW_SECONDS);
  const expectedFor = (key: string) => `v0=${hmacSha256Hex(key, `v0:${timestamp}:`, rawBody)}`;
  if (!matchesAnySecret(secretsOf(secret, previous), expectedFor, signature)) {
    throw signatureInvalid('slack', 'signature does not match');
  }
}
