import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `cvt_<id: 16 hex>_<secret: 43 base64url>`: the id finds the row, the secret proves the holder. */
const TOKEN_PATTERN = /^cvt_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** A token just made: what the person is shown once, and what is stored. */
export interface MintedToken {
  id: string;
  token: string;
  secretSha256: string;
}

export function secretSha256(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function mintPersonalToken(): MintedToken {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, token: `cvt_${id}_${secret}`, secretSha256: secretSha256(secret) };
}

/** True for text shaped like a personal token (anything else is the machine token or nothing). */
export function isPersonalToken(text: string): boolean {
  return text.startsWith('cvt_');
}

/** The id and secret of a well-formed token; null otherwise. */
export function parsePersonalToken(text: string): { id: string; secret: string } | null {
  const match = TOKEN_PATTERN.exec(text);
  return match ? { id: match[1] ?? '', secret: match[2] ?? '' } : null;
}

/** Whether `secret` hashes to `expectedSha256`, compared in constant time. */
export function secretMatches(secret: string, expectedSha256: string): boolean {
  const presented = Buffer.from(secretSha256(secret), 'hex');
  const expected = Buffer.from(expectedSha256, 'hex');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
