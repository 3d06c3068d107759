import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError } from '@caravel/errors';

/** One AES-256 key of the keyring, named by a short id stored with every ciphertext. */
export interface KeyringKey {
  id: string;
  key: Buffer;
}

/** A sealed token and the key that sealed it. */
export interface SealedToken {
  ciphertext: string;
  keyId: string;
}

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** AES-256-GCM with a 96-bit IV and 128-bit tag: `iv ‖ ciphertext ‖ tag`. */
export function gcmSeal(key: Buffer, iv: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

/** Opens {@link gcmSeal}'s output; throws when the tag does not verify. */
export function gcmOpen(key: Buffer, sealed: Buffer, aad: Buffer): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value too short');
  const iv = sealed.subarray(0, IV_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, -TAG_BYTES)), decipher.final()]);
}

/**
 * Parses a keyring setting: `id:base64key` entries separated by commas or newlines, the current
 * key first and previous keys after it (kept to read rows a rotation has not reached yet). Each
 * key must decode to exactly 32 bytes. Errors name the entry, never its key material.
 */
export function parseKeyring(spec: string, setting = 'CARAVEL_TOKEN_KEYS'): KeyringKey[] {
  const entries = spec
    .split(/[\n,]/)
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) {
    throw new AppError('CONFIG_INVALID', `${setting} is empty: give at least one id:base64key`);
  }
  const keys = entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, colon);
    const key = Buffer.from(entry.slice(colon + 1), 'base64');
    if (colon < 1 || !KEY_ID.test(id) || key.length !== 32) {
      throw new AppError(
        'CONFIG_INVALID',
        `${setting} entry ${index + 1} must be <id>:<base64 of 32 bytes> (id: letters, digits, _ or -)`,
      );
    }
    return { id, key };
  });
  if (new Set(keys.map((k) => k.id)).size !== keys.length) {
    throw new AppError('CONFIG_INVALID', `${setting} names the same key id twice`);
  }
  return keys;
}

/**
 * Encrypts tokens at rest with AES-256-GCM under a versioned keyring. A ciphertext reads
 * `v1.<keyId>.<base64url(iv ‖ ciphertext ‖ tag)>`; the caller's context (e.g.
 * `github|octocat|access`) is bound as additional authenticated data, so a ciphertext moved to
 * another row no longer opens. New tokens are sealed under the first (current) key; any key of
 * the ring opens what it sealed.
 */
export class TokenCipher {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: readonly KeyringKey[]) {
    if (keys.length === 0) throw new AppError('CONFIG_INVALID', 'the token keyring is empty');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** The id of the key new tokens are sealed under. */
  get currentKeyId(): string {
    return this.current.id;
  }

  private get current(): KeyringKey {
    return this.keys[0] as KeyringKey;
  }

  /** The same cipher with only the current key: what remains once old keys are retired. */
  currentOnly(): TokenCipher {
    return new TokenCipher([this.current]);
  }

  encrypt(plaintext: string, context: string): SealedToken {
    const { id, key } = this.current;
    const sealed = gcmSeal(
      key,
      randomBytes(IV_BYTES),
      Buffer.from(plaintext, 'utf8'),
      aad(context),
    );
    return { ciphertext: `${FORMAT}.${id}.${sealed.toString('base64url')}`, keyId: id };
  }

  /** Opens a ciphertext; `CONFIG_INVALID` for a key the ring lacks, `PRECONDITION_FAILED` if forged. */
  decrypt(ciphertext: string, context: string): string {
    const [format, keyId, body, extra] = ciphertext.split('.');
    if (format !== FORMAT || !keyId || !body || extra !== undefined) {
      throw new AppError('PRECONDITION_FAILED', 'stored token is not in the v1 format');
    }
    const key = this.byId.get(keyId);
    if (!key) {
      throw new AppError(
        'CONFIG_INVALID',
        `stored token is sealed under key ${keyId}, not in the keyring`,
        {
          details: { keyId },
        },
      );
    }
    try {
      return gcmOpen(key, Buffer.from(body, 'base64url'), aad(context)).toString('utf8');
    } catch {
      throw new AppError(
        'PRECONDITION_FAILED',
        'stored token failed authentication (tampered or moved)',
        {
          details: { keyId },
        },
      );
    }
  }
}

function aad(context: string): Buffer {
  return Buffer.from(`caravel-token:${FORMAT}|${context}`, 'utf8');
}
