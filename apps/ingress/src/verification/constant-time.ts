import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Compares a received credential with the expected one in time that does not depend on where
 * they differ. Unequal lengths still run one full compare so the answer takes the same path.
 */
export function constantTimeEqual(expected: string, received: string): boolean {
  const want = Buffer.from(expected, 'utf8');
  const got = Buffer.from(received, 'utf8');
  if (want.length !== got.length) {
    timingSafeEqual(want, want);
    return false;
  }
  return timingSafeEqual(want, got);
}

/** Lower-case hex HMAC-SHA256 of `parts`, in order, keyed with `secret`. */
export function hmacSha256Hex(secret: string, ...parts: (string | Buffer)[]): string {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
}

/**
 * Whether `received` is the credential `expectedFor` makes from any of `secrets` (the current one
 * and, during a rotation, the previous one). Every candidate is compared, each in constant time.
 */
export function matchesAnySecret(
  secrets: readonly string[],
  expectedFor: (secret: string) => string,
  received: string,
): boolean {
  let matched = false;
  for (const secret of secrets)
    matched = constantTimeEqual(expectedFor(secret), received) || matched;
  return matched;
}

/** The secrets a verifier accepts: the current one, then the previous one while it rotates. */
export function secretsOf(current: string, previous: string | undefined): string[] {
  return previous ? [current, previous] : [current];
}
