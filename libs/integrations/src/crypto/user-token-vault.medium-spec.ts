import { randomBytes, randomUUID } from 'node:crypto';
import { openDatabase, UserTokenRepository, type Database } from '@caravel/db';
import { describeEachDatabase } from '@caravel/testing';
import { TokenCipher, type KeyringKey } from './token-cipher.js';
import { UserTokenVault } from './user-token-vault.js';

const key = (id: string): KeyringKey => ({ id, key: randomBytes(32) });

await describeEachDatabase('user token vault', openDatabase, (target) => {
  let database: Database;
  let rows: UserTokenRepository;

  beforeAll(async () => {
    database = await target.open();
    rows = new UserTokenRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  const address = (subject: string) => ({ provider: 'github', subject, kind: 'access' as const });

  it('stores a token encrypted and reads it back with its expiry', async () => {
    const vault = new UserTokenVault(rows, new TokenCipher([key('a1')]));
    const subject = `u-${randomUUID()}`;
    const expiresAt = new Date('2031-01-01T00:00:00Z');
    await vault.store(address(subject), 'gho_plain', expiresAt);

    const stored = await rows.find('github', subject, 'access');
    expect(stored?.ciphertext).not.toContain('gho_plain');
    expect(stored?.keyId).toBe('a1');
    await expect(vault.read(address(subject))).resolves.toEqual({ token: 'gho_plain', expiresAt });
    await expect(vault.read(address(`none-${subject}`))).resolves.toBeNull();
    await expect(vault.forget('github', subject)).resolves.toBe(1);
  });

  it('rotates every row to the new key in batches and proves none is left undecryptable', async () => {
    const k1 = key(`r1${randomUUID().slice(0, 8)}`);
    const k2 = key(`r2${randomUUID().slice(0, 8)}`);
    const before = new UserTokenVault(rows, new TokenCipher([k1]));
    const subjects = Array.from({ length: 7 }, (_, i) => `rot-${i}-${randomUUID()}`);
    for (const subject of subjects) await before.store(address(subject), `token-${subject}`);

    const after = new UserTokenVault(rows, new TokenCipher([k2, k1]));
    const report = await after.rotate(3);

    expect(report).toMatchObject({ undecryptable: [], failedVerification: [], complete: true });
    expect(report.reencrypted).toBeGreaterThanOrEqual(subjects.length);
    const counts = await rows.countByKey();
    expect(counts.get(k1.id)).toBeUndefined();
    expect(counts.get(k2.id)).toBe(subjects.length);
    const retired = new UserTokenVault(rows, new TokenCipher([k2]));
    for (const subject of subjects) {
      await expect(retired.read(address(subject))).resolves.toMatchObject({
        token: `token-${subject}`,
      });
    }
  });

  it('reports a row no key can open instead of claiming the rotation complete', async () => {
    const lost = key(`lost${randomUUID().slice(0, 8)}`);
    const subject = `orphan-${randomUUID()}`;
    await new UserTokenVault(rows, new TokenCipher([lost])).store(address(subject), 'gone');
    const orphan = await rows.find('github', subject, 'access');

    const report = await new UserTokenVault(rows, new TokenCipher([key('n1')])).rotate(50);

    expect(report.complete).toBe(false);
    expect(report.undecryptable).toContain(orphan?.id);
    expect(report.failedVerification).toContain(orphan?.id);
    expect((await rows.find('github', subject, 'access'))?.ciphertext).toBe(orphan?.ciphertext);
    await rows.deleteSubject('github', subject);
  });
});
