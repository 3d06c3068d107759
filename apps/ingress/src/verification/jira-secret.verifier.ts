import { signatureInvalid } from '../ingress.errors.js';
import { hmacSha256Hex, matchesAnySecret, secretsOf } from './constant-time.js';
import { checkSignedTimestamp } from './signed-request.js';

/** How far `X-Caravel-Timestamp` may be from our clock when the HMAC is required. */
export const JIRA_MAX_SKEW_SECONDS = 300;

export interface JiraCredentials {
  /** The shared-secret header's value. */
  secret: string | undefined;
  /** `X-Caravel-Timestamp` (epoch seconds), needed when an HMAC secret is configured. */
  timestamp: string | undefined;
  /** `X-Caravel-Signature`: `sha256=` + hex HMAC-SHA256 of `<timestamp>.<raw body>`. */
  signature: string | undefined;
}

export interface JiraSecrets {
  sharedSecret: string | undefined;
  hmacSecret: string | undefined;
  /** Accepted too while the shared secret rotates. */
  previousSharedSecret?: string | undefined;
  /** Accepted too while the HMAC secret rotates. */
  previousHmacSecret?: string | undefined;
}

/**
 * A Jira Automation "Send web request": a static shared secret in a header (Jira Cloud signs
 * nothing itself), plus, when `hmacSecret` is configured, a timestamped HMAC of the body.
 */
export function verifyJiraRequest(
  rawBody: Buffer,
  credentials: JiraCredentials,
  secrets: JiraSecrets,
  now: Date,
): void {
  if (!secrets.sharedSecret) throw signatureInvalid('jira', 'JIRA_SHARED_SECRET is not configured');
  if (!credentials.secret) throw signatureInvalid('jira', 'shared secret header is missing');
  const shared = secretsOf(secrets.sharedSecret, secrets.previousSharedSecret);
  if (!matchesAnySecret(shared, (key) => key, credentials.secret)) {
    throw signatureInvalid('jira', 'shared secret does not match');
  }
  if (!secrets.hmacSecret) return;
  const { timestamp, signature } = credentials;
  if (!timestamp || !signature) {
    throw signatureInvalid('jira', 'X-Caravel-Timestamp or X-Caravel-Signature is missing');
  }
  checkSignedTimestamp('jira', timestamp, now, JIRA_MAX_SKEW_SECONDS);
  const expectedFor = (key: string) => `sha256=${hmacSha256Hex(key, `${timestamp}.`, rawBody)}`;
  const hmacKeys = secretsOf(secrets.hmacSecret, secrets.previousHmacSecret);
  if (!matchesAnySecret(hmacKeys, expectedFor, signature.toLowerCase())) {
    throw signatureInvalid('jira', 'signature does not match');
  }
}
