import { randomUUID } from 'node:crypto';
import { isAppError } from '@caravel/errors';
import type { UserTokenRepository, UserTokenRow } from '@caravel/db';
import type { TokenCipher } from './token-cipher.js';

/** Which token: a provider (`github`), the user's id there (lower-case login), and its kind. */
export interface TokenAddress {
  provider: string;
  subject: string;
  kind: 'access' | 'refresh';
}

/** A decrypted token. */
export interface StoredToken {
  token: string;
  expiresAt: Date | null;
}

/** What {@link UserTokenVault.rotate} did, and the proof that nothing was left behind. */
export interface RotationReport {
  /** Rows moved to the current key. */
  reencrypted: number;
  /** Rows no key of the ring could open (left untouched; the rotation failed). */
  undecryptable: string[];
  /** Rows checked in the verification sweep. */
  verified: number;
  /** Rows that did not open with the current key alone in the verification sweep. */
  failedVerification: string[];
  /** True when every row opens with the current key alone: previous keys may be retired. */
  complete: boolean;
}

const contextOf = (a: TokenAddress | UserTokenRow): string =>
  `${a.provider}|${a.subject}|${a.kind}`;

/**
 * User tokens encrypted at rest: sealed with the keyring's current key and the row's address as
 * AAD, opened with whichever key sealed them. {@link rotate} re-encrypts every row under the
 * current key in batches and then proves, with the current key alone, that every row opens.
 */
export class UserTokenVault {
  constructor(
    private readonly rows: UserTokenRepository,
    private readonly cipher: TokenCipher,
  ) {}

  async store(address: TokenAddress, token: string, expiresAt: Date | null = null): Promise<void> {
    const sealed = this.cipher.encrypt(token, contextOf(address));
    await this.rows.upsert({ id: randomUUID(), ...address, ...sealed, expiresAt });
  }

  /** The token, or null when none is stored. A row that cannot be opened raises a coded error. */
  async read(address: TokenAddress): Promise<StoredToken | null> {
    const row = await this.rows.find(address.provider, address.subject, address.kind);
    if (!row) return null;
    return { token: this.cipher.decrypt(row.ciphertext, contextOf(row)), expiresAt: row.expiresAt };
  }

  async forget(provider: string, subject: string): Promise<number> {
    return this.rows.deleteSubject(provider, subject);
  }

  /** Re-encrypts every row not under the current key, `batchSize` at a time, then verifies. */
  async rotate(batchSize = 100): Promise<RotationReport> {
    const current = this.cipher.currentKeyId;
    const undecryptable: string[] = [];
    let reencrypted = 0;
    let afterId: string | undefined;
    for (;;) {
      const page = await this.rows.pageNotUnderKey({
        notUnderKey: current,
        limit: batchSize,
        ...(afterId ? { afterId } : {}),
      });
      if (page.length === 0) break;
      for (const row of page) {
        const moved = await this.reseal(row);
        if (moved === 'undecryptable') undecryptable.push(row.id);
        if (moved === 'moved') reencrypted += 1;
      }
      afterId = page.at(-1)?.id;
    }
    const { verified, failed } = await this.verify(batchSize);
    return {
      reencrypted,
      undecryptable,
      verified,
      failedVerification: failed,
      complete: undecryptable.length === 0 && failed.length === 0,
    };
  }

  private async reseal(row: UserTokenRow): Promise<'moved' | 'skipped' | 'undecryptable'> {
    let plaintext: string;
    try {
      plaintext = this.cipher.decrypt(row.ciphertext, contextOf(row));
    } catch (error) {
      if (isAppError(error)) return 'undecryptable';
      throw error;
    }
    const sealed = this.cipher.encrypt(plaintext, contextOf(row));
    // A concurrent store already wrote under the current key when the swap finds a new ciphertext.
    return (await this.rows.replaceCiphertext(row.id, row.ciphertext, sealed))
      ? 'moved'
      : 'skipped';
  }

  private async verify(batchSize: number): Promise<{ verified: number; failed: string[] }> {
    const only = this.cipher.currentOnly();
    const failed: string[] = [];
    let verified = 0;
    let afterId: string | undefined;
    for (;;) {
      const page = await this.rows.page(afterId, batchSize);
      if (page.length === 0) break;
      for (const row of page) {
        verified += 1;
        try {
          only.decrypt(row.ciphertext, contextOf(row));
        } catch {
          failed.push(row.id);
        }
      }
      afterId = page.at(-1)?.id;
    }
    return { verified, failed };
  }
}
