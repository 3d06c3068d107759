import { signatureInvalid } from '../ingress.errors.js';
import { hmacSha256Hex, matchesAnySecret, secretsOf } from './constant-time.js';

/**
 * GitHub's `X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256 of the raw body. Fails closed: an
 * unset secret or a missing header is a rejection, as is the legacy SHA-1 `sha1=` form. While
 * the secret rotates, `previous` is accepted too.
 */
export function verifyGithubSignature(
  rawBody: Buffer,
  signature: string | undefined,
  secret: string | undefined,
  previous?: string,
): void {
  if (!secret) throw signatureInvalid('github', 'GITHUB_WEBHOOK_SECRET is not configured');
  if (!signature) throw signatureInvalid('github', 'X-Hub-Signature-256 is missing');
  const expectedFor = (key: string) => `sha256=${hmacSha256Hex(key, rawBody)}`;
  if (!matchesAnySecret(secretsOf(secret, previous), expectedFor, signature.toLowerCase())) {
    throw signatureInvalid('github', 'signature does not match');
  }
}
