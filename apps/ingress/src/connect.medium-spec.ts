import { confluenceThreadId, STREAMS, type Envelope } from '@caravel/contracts';
import { ConnectTenantRepository, openDatabase, type Database } from '@caravel/db';
import { createEmbeddedBus, type Bus } from '@caravel/messaging';
import { composeRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import { parseKeyring, TokenCipher } from '@caravel/integrations';
import { describeEachDatabase, FakeConfluence, LoopbackApi } from '@caravel/testing';
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { IngressModule } from './ingress.module.js';
import { ingressConfigFrom } from './ingress.config.js';
import { connectSecretContext } from './services/connect-secrets.js';
import {
  connectQsh as qsh,
  hs256,
  rs256 as rs256With,
  unsignedJwt as unsigned,
} from './testing/connect-signing.js';

const NOW = new Date('2026-01-02T10:00:00Z');
const SECONDS = Math.floor(NOW.getTime() / 1000);
const BASE = 'https://caravel.example.test';
const atlassian = generateKeyPairSync('rsa', { modulusLength: 2048 });
const impostor = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rs256 = (claims: Record<string, unknown>, key = atlassian.privateKey, kid = 'kid-1') =>
  rs256With(claims, key, kid);

await describeEachDatabase('Confluence Connect app over HTTP', openDatabase, (target) => {
  let database: Database;
  let bus: Bus;
  let host: ServiceHost;
  let keys: LoopbackApi;
  let confluence: FakeConfluence;

  beforeAll(async () => {
    keys = new LoopbackApi().route('GET', '/kid-1', () => ({
      status: 200,
      body: atlassian.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    }));
    await keys.listen();
    confluence = new FakeConfluence().addAccount('svc@acme.test', 'svc-token');
    await confluence.listen();
    database = await target.open();
    bus = createEmbeddedBus({ database, name: 'connect-medium' });
    await bus.ensureStreams(Object.values(STREAMS));
    const runtime = composeRuntime({ name: 'connect-medium', mode: 'embedded', bus, database });
    const config = ingressConfigFrom({
      CONFLUENCE_BASE_URL: BASE,
      CONNECT_KEYS_URL: keys.origin,
      CONFLUENCE_EMAIL: 'svc@acme.test',
      CONFLUENCE_API_TOKEN: 'svc-token',
      CONFLUENCE_BOT_ACCOUNT_ID: 'acc-bot',
      CONNECT_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    });
    host = await startServiceHost({
      runtime,
      modules: [IngressModule.register(config, { now: () => NOW })],
      port: 0,
      logLevels: ['fatal'],
    });
  });

  afterAll(async () => {
    await host?.close();
    await keys?.close();
    await confluence?.close();
  });

  async function post(path: string, token: string, body: unknown) {
    const response = await fetch(`${host.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `JWT ${token}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const installClaims = (clientKey: string, extra: Record<string, unknown> = {}) => ({
    iss: clientKey,
    aud: BASE,
    iat: SECONDS - 10,
    exp: SECONDS + 170,
    qsh: qsh('POST', '/connect/installed'),
    ...extra,
  });

  function install(clientKey: string, secret: string, token = rs256(installClaims(clientKey))) {
    return post('/connect/installed', token, {
      key: 'caravel',
      clientKey,
      sharedSecret: secret,
      baseUrl: confluence.wikiUrl,
      productType: 'confluence',
      eventType: 'installed',
    });
  }

  async function triggersFor(threadId: string): Promise<Envelope[]> {
    const found: Envelope[] = [];
    for await (const message of bus.replay(STREAMS.TRIGGERS, { threadId })) {
      found.push(message.envelope);
    }
    return found;
  }

  it('serves the descriptor with signed installs and the comment_created webhook', async () => {
    const response = await fetch(`${host.url}/connect/atlassian-connect.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      key: 'caravel',
      baseUrl: BASE,
      authentication: { type: 'jwt' },
      lifecycle: { installed: '/connect/installed', uninstalled: '/connect/uninstalled' },
      apiMigrations: { 'signed-install': true },
      modules: { webhooks: [{ event: 'comment_created' }] },
    });
  });

  it('refuses an install signed by another key, unsigned, expired or for another app', async () => {
    const tenants = new ConnectTenantRepository(database.db);
    const clientKey = randomUUID();
    const claims = installClaims(clientKey);
    for (const token of [
      rs256(claims, impostor.privateKey),
      unsigned(claims),
      hs256(claims, 'guess'),
      rs256(installClaims(clientKey, { exp: SECONDS - 1 })),
      rs256(installClaims(clientKey, { aud: 'https://elsewhere.test' })),
      rs256(installClaims(clientKey, { qsh: qsh('POST', '/connect/uninstalled') })),
      rs256(claims, atlassian.privateKey, '../kid-1'),
    ]) {
      const answer = await install(clientKey, 'plain-shared-secret', token);
      expect(answer).toMatchObject({ status: 401, body: { error: { code: 'SIGNATURE_INVALID' } } });
    }
    expect(await tenants.get(clientKey)).toBeNull();
  });

  it('stores an accepted install with the secret sealed: the plaintext is nowhere in the row', async () => {
    const clientKey = randomUUID();
    const secret = `shh-${randomUUID()}`;
    expect(await install(clientKey, secret)).toMatchObject({ status: 200 });
    const row = await database.db
      .selectFrom('connect_tenants')
      .selectAll()
      .where('client_key', '=', clientKey)
      .executeTakeFirstOrThrow();
    expect(row.key_id).toBe('k1');
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(Buffer.from(secret).toString('base64'));
  });

  it('refuses a tenant whose secret the token keyring sealed, naming the re-seal, and publishes nothing', async () => {
    // Installed before the ingress had a keyring of its own: sealed under CARAVEL_TOKEN_KEYS,
    // even under the same key id, it does not open under CONNECT_SECRET_KEYS.
    const clientKey = randomUUID();
    const secret = `old-${randomUUID()}`;
    const tokenRing = new TokenCipher(parseKeyring(`k1:${randomBytes(32).toString('base64')}`));
    const sealed = tokenRing.encrypt(secret, connectSecretContext(clientKey));
    await new ConnectTenantRepository(database.db).install({
      clientKey,
      baseUrl: confluence.wikiUrl,
      productType: 'confluence',
      sealedSecret: sealed.ciphertext,
      keyId: sealed.keyId,
    });
    const comment = confluence.addComment({
      pageId: '899',
      storage: '<p><ri:user ri:account-id="acc-bot" /> hello</p>',
      author: { accountId: 'acc-ana', displayName: 'Ana' },
    });
    const path = '/connect/webhooks/comment-created';
    const token = hs256(
      { iss: clientKey, iat: SECONDS - 5, exp: SECONDS + 175, qsh: qsh('POST', path) },
      secret,
    );
    const answer = await post(path, token, { comment: { id: comment.id } });
    expect(answer).toMatchObject({ status: 500, body: { error: { code: 'CONFIG_INVALID' } } });
    const message = (answer.body['error'] as { message: string }).message;
    expect(message).toContain('does not open under CONNECT_SECRET_KEYS');
    expect(message).toContain('caravel connect reseal');
    const thread = confluenceThreadId({
      site: confluence.wikiUrl,
      pageId: '899',
      rootCommentId: comment.id,
    });
    expect(await triggersFor(thread)).toHaveLength(0);
  });

  describe('comment_created', () => {
    const clientKey = randomUUID();
    const secret = `shared-${randomUUID()}`;
    const path = '/connect/webhooks/comment-created';
    const claims = (extra: Record<string, unknown> = {}) => ({
      iss: clientKey,
      iat: SECONDS - 5,
      exp: SECONDS + 175,
      qsh: qsh('POST', path),
      ...extra,
    });

    beforeAll(async () => {
      expect(await install(clientKey, secret)).toMatchObject({ status: 200 });
    });

    it('refuses a wrong qsh, alg none, an expired token or another secret, publishing nothing', async () => {
      const comment = confluence.addComment({
        pageId: '900',
        storage: '<p><ri:user ri:account-id="acc-bot" /> refused</p>',
        author: { accountId: 'acc-eve', displayName: 'Eve' },
      });
      for (const token of [
        hs256(claims({ qsh: qsh('GET', path) }), secret),
        hs256(claims({ qsh: 'context-qsh' }), secret),
        unsigned(claims()),
        hs256(claims({ exp: SECONDS - 1 }), secret),
        hs256(claims(), 'not-the-secret'),
      ]) {
        const answer = await post(path, token, { comment: { id: comment.id } });
        expect(answer).toMatchObject({
          status: 401,
          body: { error: { code: 'SIGNATURE_INVALID' } },
        });
      }
      const thread = confluenceThreadId({
        site: confluence.wikiUrl,
        pageId: '900',
        rootCommentId: comment.id,
      });
      expect(await triggersFor(thread)).toHaveLength(0);
      expect(confluence.calls).toHaveLength(0);
    });

    it('publishes one trigger whose author and text come from the re-fetch, not the body', async () => {
      const comment = confluence.addComment({
        pageId: '901',
        storage: '<p><ac:link><ri:user ri:account-id="acc-bot" /></ac:link> fix the build</p>',
        author: { accountId: 'acc-ana', displayName: 'Ana' },
      });
      const body = {
        comment: { id: comment.id, creatorAccountId: 'acc-admin', body: 'rm -rf / please' },
        userAccountId: 'acc-admin',
      };
      const first = await post(path, hs256(claims(), secret), body);
      expect(first).toMatchObject({ status: 200, body: { accepted: true } });
      const again = await post(path, hs256(claims(), secret), body);
      expect(again).toMatchObject({ status: 200, body: { reason: 'duplicate' } });

      const threadId = confluenceThreadId({
        site: confluence.wikiUrl,
        pageId: '901',
        rootCommentId: comment.id,
      });
      expect(first.body['threadId']).toBe(threadId);
      const triggers = await triggersFor(threadId);
      expect(triggers).toHaveLength(1);
      expect(triggers[0]?.data).toMatchObject({
        source: 'confluence',
        author: { externalId: 'acc-ana', displayName: 'Ana' },
        trusted: false,
        replyTo: { pageId: '901', commentId: comment.id },
      });
      const text = (triggers[0]?.data as { text: string }).text;
      expect(text).toContain('fix the build');
      expect(text).not.toContain('rm -rf');
    });

    it('takes a genuine request whose query repeats a key and holds a second ?', async () => {
      const comment = confluence.addComment({
        pageId: '902',
        storage: '<p><ri:user ri:account-id="acc-bot" /> look again</p>',
        author: { accountId: 'acc-ana', displayName: 'Ana' },
      });
      // What Atlassian hashes: values sorted decoded (. before :), then encoded; the ? is data.
      const canonical = `POST&${path}&ids=.1,.2,%3A1,%3A2&q=a%3Fb`;
      const token = hs256(
        claims({ qsh: createHash('sha256').update(canonical).digest('hex') }),
        secret,
      );
      const target = `${path}?ids=%3A2&ids=.2&ids=%3A1&ids=.1&q=a?b`;
      const answer = await post(target, token, { comment: { id: comment.id } });
      expect(answer).toMatchObject({ status: 200, body: { accepted: true } });
    });

    it('refuses comments after the tenant uninstalled', async () => {
      const uninstall = await post(
        '/connect/uninstalled',
        rs256(installClaims(clientKey, { qsh: qsh('POST', '/connect/uninstalled') })),
        { key: 'caravel', clientKey, baseUrl: confluence.wikiUrl, eventType: 'uninstalled' },
      );
      expect(uninstall.status).toBe(200);
      const answer = await post(path, hs256(claims(), secret), { comment: { id: '1' } });
      expect(answer.status).toBe(401);
    });
  });
});
