import { ConnectTenantRepository, openDatabase, type ConnectTenantRow } from '@caravel/db';
import { ConnectSecretCipher, connectSecretContext } from '@caravel/ingress';
import { parseKeyring, TokenCipher } from '@caravel/integrations';
import { createTestPostgresDatabase, serviceGate, type RequiredService } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordingIo } from '../testing/recording-io.js';
import { runCli } from './cli.js';

// `caravel connect reseal` end to end: the command line, the environment's two keyrings and a
// real database (PostgreSQL by URL, the embedded PGlite by data dir), as an operator runs it once
// after the upgrade that gave the ingress its own keyring.

/** A database the command reaches: the options that name it and its URL (to seed and inspect). */
interface Store {
  args: string[];
  url: string;
  drop(): Promise<void>;
}

const TARGETS: { label: string; services: RequiredService[]; create(): Promise<Store> }[] = [
  {
    label: 'postgres',
    services: ['postgres'],
    async create() {
      const created = await createTestPostgresDatabase();
      return { args: ['--database-url', created.url], url: created.url, drop: created.drop };
    },
  },
  {
    label: 'pglite',
    services: [],
    async create() {
      const dir = await mkdtemp(join(tmpdir(), 'caravel-reseal-'));
      const drop = () => rm(dir, { recursive: true, force: true });
      return { args: ['--data-dir', dir], url: `pglite:${join(dir, 'pgdata')}`, drop };
    },
  },
];

const ring = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;

for (const target of TARGETS) {
  const gate = await serviceGate(target.services);
  gate.describe(`caravel connect reseal [${target.label}]`, () => {
    const tokenRing = ring('k1');
    // The same id as the token keyring's key on purpose: operators name their first key k1.
    const connectRing = ring('k1');
    const secrets = new Map<string, string>([
      [randomUUID(), `installed-${randomUUID()}`],
      [randomUUID(), `uninstalled-${randomUUID()}`],
    ]);
    let store: Store;

    async function withTenants<T>(work: (tenants: ConnectTenantRepository) => Promise<T>) {
      const database = await openDatabase({ url: store.url });
      try {
        return await work(new ConnectTenantRepository(database.db));
      } finally {
        await database.close();
      }
    }
    const rows = () => withTenants((tenants) => tenants.list());

    async function reseal(env: Record<string, string>) {
      const io = recordingIo();
      const code = await runCli(['connect', 'reseal', ...store.args], env, io);
      return { code, out: io.written.join(''), err: io.errors.join('') };
    }

    beforeAll(async () => {
      store = await target.create();
      // Installed before the upgrade: sealed under CARAVEL_TOKEN_KEYS, one since uninstalled.
      const old = new TokenCipher(parseKeyring(tokenRing));
      await withTenants(async (tenants) => {
        for (const [clientKey, secret] of secrets) {
          const sealed = old.encrypt(secret, connectSecretContext(clientKey));
          await tenants.install({
            clientKey,
            baseUrl: 'https://acme.atlassian.net/wiki',
            productType: 'confluence',
            sealedSecret: sealed.ciphertext,
            keyId: sealed.keyId,
          });
        }
        await tenants.uninstall([...secrets.keys()][1] ?? '');
      });
    });

    afterAll(async () => {
      await store?.drop();
    });

    it('refuses without CONNECT_SECRET_KEYS, saying what to set, with no stack', async () => {
      const before = await rows();
      const answer = await reseal({ CARAVEL_TOKEN_KEYS: tokenRing });
      expect(answer.code).toBe(1);
      expect(answer.err).toMatch(/^caravel connect: CONNECT_SECRET_KEYS is unset: set it to/);
      expect(answer.err).not.toMatch(/\n\s+at /);
      expect(await rows()).toEqual(before);
    });

    it('refuses a Connect keyring that shares a key with the token keyring', async () => {
      const answer = await reseal({
        CONNECT_SECRET_KEYS: `c2:${tokenRing.split(':')[1]}`,
        CARAVEL_TOKEN_KEYS: tokenRing,
      });
      expect(answer.code).toBe(1);
      expect(answer.err).toContain(
        'CONNECT_SECRET_KEYS key c2 is also a key of CARAVEL_TOKEN_KEYS',
      );
    });

    it('fails closed, changing nothing, while a secret opens under neither keyring', async () => {
      const before = await rows();
      const wrong = await reseal({
        CONNECT_SECRET_KEYS: connectRing,
        CARAVEL_TOKEN_KEYS: ring('k1'),
      });
      expect(wrong.code).toBe(1);
      expect(wrong.err).toContain('2 Connect tenant secret(s) open under neither');
      for (const clientKey of secrets.keys()) expect(wrong.err).toContain(clientKey);
      expect(wrong.err).toContain('Nothing was changed');
      const unset = await reseal({ CONNECT_SECRET_KEYS: connectRing });
      expect(unset.code).toBe(1);
      expect(unset.err).toContain('CARAVEL_TOKEN_KEYS is unset: set it to the keyring');
      expect(unset.err).not.toMatch(/\n\s+at /);
      expect(await rows()).toEqual(before);
    });

    it('re-seals every tenant under CONNECT_SECRET_KEYS, which alone opens them after', async () => {
      const answer = await reseal({
        CONNECT_SECRET_KEYS: connectRing,
        CARAVEL_TOKEN_KEYS: tokenRing,
      });
      expect(answer).toMatchObject({ code: 0, err: '' });
      expect(answer.out).toMatch(
        /2 Connect tenants in .*: 2 re-sealed from CARAVEL_TOKEN_KEYS, 0 moved to the current CONNECT_SECRET_KEYS key, 0 already under it\n$/,
      );
      const connect = new ConnectSecretCipher(connectRing);
      const old = new TokenCipher(parseKeyring(tokenRing));
      for (const row of await rows()) {
        expect(answer.out).toContain(`${row.clientKey}: re-sealed from CARAVEL_TOKEN_KEYS`);
        expect(connect.open(row)).toBe(secrets.get(row.clientKey));
        expect(() => old.decrypt(row.sealedSecret, connectSecretContext(row.clientKey))).toThrow(
          'failed authentication',
        );
      }
    });

    it('changes nothing when run again, even without the token keyring', async () => {
      const before = await rows();
      const answer = await reseal({ CONNECT_SECRET_KEYS: connectRing });
      expect(answer.code).toBe(0);
      expect(answer.out).toContain('0 re-sealed from CARAVEL_TOKEN_KEYS, 0 moved');
      expect(answer.out).toContain('2 already under it');
      expect(await rows()).toEqual(before);
    });

    it("moves secrets under an older Connect key to the keyring's current one", async () => {
      const rotated = `${ring('k2')},${connectRing}`;
      const answer = await reseal({ CONNECT_SECRET_KEYS: rotated });
      expect(answer.code).toBe(0);
      expect(answer.out).toContain('2 moved to the current CONNECT_SECRET_KEYS key');
      const currentOnly = new ConnectSecretCipher(rotated.split(',')[0] ?? '');
      const after: ConnectTenantRow[] = await rows();
      expect(after.map((row) => row.keyId)).toEqual(['k2', 'k2']);
      for (const row of after) expect(currentOnly.open(row)).toBe(secrets.get(row.clientKey));
    });
  });
}
