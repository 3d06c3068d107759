import { AppError } from '@caravel/errors';
import { parseKeyring, TokenCipher } from '@caravel/integrations';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Session } from './session.types.js';

const sessionSchema = z.object({
  sid: z.string().min(32),
  login: z.string().min(1),
  githubId: z.number().int(),
  name: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  role: z.enum(['member', 'admin']),
  admission: z
    .discriminatedUnion('via', [
      z.object({ via: z.literal('list') }),
      z.object({ via: z.literal('org'), org: z.string().min(1) }),
    ])
    .optional(),
  expiresAt: z.number().int(),
});

const nonceSchema = z.object({ nonce: z.string().min(16), expiresAt: z.number().int() });

/** AAD contexts: a sealed sign-in nonce never opens as a session, nor the other way round. */
const refusalSchema = z.object({
  code: z.string().min(1),
  message: z.string(),
  expiresAt: z.number().int(),
});

const SESSION_CONTEXT = 'dashboard|session';
const NONCE_CONTEXT = 'dashboard|oauth-nonce';
const REFUSAL_CONTEXT = 'dashboard|sign-in-refusal';

/**
 * Seals sessions and sign-in nonces into cookie values with the token cipher (AES-256-GCM under
 * a keyring, so keys rotate like the token vault's). A cookie that does not open, has expired or
 * carries no session id (sealed before sessions were kept) is no session; one that opens is
 * still checked against its server-side record (`SessionsService.check`). Without a configured
 * keyring the key is random per process, so a restart signs everyone out (fine on one machine,
 * wrong for replicas).
 */
export class SessionSealer {
  private readonly cipher: TokenCipher;

  constructor(
    keyring: string | undefined,
    readonly now: () => number = Date.now,
  ) {
    const keys = keyring
      ? parseKeyring(keyring, 'DASHBOARD_SESSION_KEYS')
      : [{ id: 'process', key: randomBytes(32) }];
    this.cipher = new TokenCipher(keys);
  }

  sealSession(session: Session): string {
    return this.cipher.encrypt(JSON.stringify(session), SESSION_CONTEXT).ciphertext;
  }

  /** The session in a cookie value, or null when it is forged, from another key, or expired. */
  openSession(value: string | undefined): Session | null {
    const session = this.open(value, SESSION_CONTEXT, sessionSchema);
    return session && session.expiresAt > this.now() ? session : null;
  }

  sealNonce(nonce: string, ttlMs: number): string {
    const payload = { nonce, expiresAt: this.now() + ttlMs };
    return this.cipher.encrypt(JSON.stringify(payload), NONCE_CONTEXT).ciphertext;
  }

  /** The nonce a sign-in started with; UNAUTHENTICATED when the cookie is missing or stale. */
  openNonce(value: string | undefined): string {
    const sealed = this.open(value, NONCE_CONTEXT, nonceSchema);
    if (!sealed || sealed.expiresAt <= this.now()) {
      throw new AppError(
        'UNAUTHENTICATED',
        'the sign-in expired or was started in another browser: sign in again',
      );
    }
    return sealed.nonce;
  }

  /** A refused sign-in's code and message, sealed for the sign-in page's URL. */
  sealRefusal(refusal: { code: string; message: string }, ttlMs: number): string {
    const payload = { ...refusal, expiresAt: this.now() + ttlMs };
    return this.cipher.encrypt(JSON.stringify(payload), REFUSAL_CONTEXT).ciphertext;
  }

  /** The refusal {@link sealRefusal} sealed, or null (not sealed here, or expired). */
  openRefusal(value: string | undefined): { code: string; message: string } | null {
    const sealed = this.open(value, REFUSAL_CONTEXT, refusalSchema);
    return sealed && sealed.expiresAt > this.now()
      ? { code: sealed.code, message: sealed.message }
      : null;
  }

  private open<T>(value: string | undefined, context: string, schema: z.ZodType<T>): T | null {
    if (!value) return null;
    try {
      const parsed = schema.safeParse(JSON.parse(this.cipher.decrypt(value, context)));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }
}
