import { generateKeyPairSync } from 'node:crypto';
import { RefreshingTokenSource } from '@caravel/sandbox';
import { FakeGitHub } from '@caravel/testing';
import { AppError } from '@caravel/errors';
import { GitHubApi } from './github-client.js';
import { GitHubCodeHost } from './github-code-host.js';
import { GitHubApp } from './github-app.js';
import { GitHubCredentials } from './github-credentials.js';

/** What `run` throws (undefined when it returns). */
function caught(run: () => unknown): unknown {
  try {
    run();
    return undefined;
  } catch (error) {
    return error;
  }
}

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const widgets = { owner: 'acme', name: 'widgets' };
const HOUR = 3_600_000;

describe('GitHubApp installation tokens against the fake GitHub', () => {
  let github: FakeGitHub;
  let now: number;

  const app = (key = privateKey): GitHubApp =>
    new GitHubApp({ appId: '42', privateKey: key, baseUrl: github.origin, now: () => now });
  const hostWith = (token: string, repository = widgets): GitHubCodeHost =>
    new GitHubCodeHost(
      new GitHubApi({ baseUrl: github.origin, tokens: () => Promise.resolve(token) }),
      repository,
    );

  beforeEach(async () => {
    now = Date.parse('2030-01-01T00:00:00Z');
    github = new FakeGitHub({ now: () => now, app: { id: '42', publicKey } })
      .addRepository('acme/widgets', { installationId: 7 })
      .addRepository('acme/gadgets', { installationId: 7 });
    await github.start();
  });

  afterEach(() => github.close());

  it('mints from a signed App JWT a token that works on its repository only', async () => {
    const minted = await app().mint(widgets);

    expect(minted.expiresAt.getTime()).toBe(now + HOUR);
    await expect(hostWith(minted.token).comment(1, 'hi')).resolves.toMatchObject({ created: true });
    await expect(
      hostWith(minted.token, { owner: 'acme', name: 'gadgets' }).comment(1, 'hi'),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const jwt = github.callsTo({ path: '/access_tokens' })[0]?.headers.authorization;
    expect(jwt).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/i);
  });

  it('caches a token, mints once for concurrent callers, and re-mints within five minutes of expiry', async () => {
    const gh = app();
    const [a, b] = await Promise.all([gh.token(widgets), gh.token(widgets)]);
    expect(a).toBe(b);
    now += HOUR - 6 * 60_000;
    expect(await gh.token(widgets)).toBe(a);
    now += 2 * 60_000;
    const refreshed = await gh.token(widgets);

    expect(refreshed).not.toBe(a);
    expect(github.minted).toHaveLength(2);
  });

  it('fits the sandbox egress proxy as its TokenMinter, scope unchanged', async () => {
    const source = new RefreshingTokenSource({
      repository: 'acme/widgets',
      mint: app().minter(),
      now: () => now,
    });
    const scoped = await source.getToken({ repository: 'acme/widgets' });

    await expect(hostWith(scoped.token).comment(2, 'x')).resolves.toMatchObject({ created: true });
    await expect(source.getToken({ repository: 'acme/gadgets' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('codes a JWT signed with the wrong key as UNAUTHENTICATED', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    await expect(app(other).mint(widgets)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('codes a repository the App is not installed on as NOT_FOUND', async () => {
    await expect(app().mint({ owner: 'acme', name: 'secret' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('refuses a private key that is not PEM with CONFIG_INVALID', () => {
    expect(
      caught(() => new GitHubApp({ appId: '1', privateKey: 'not a key', baseUrl: github.origin })),
    ).toMatchObject({ code: 'CONFIG_INVALID' });
  });
});

describe('GitHubCredentials (user first, App fallback)', () => {
  const app = { token: () => Promise.resolve('ghs_app') };
  const users = (stored: Record<string, { token: string; expiresAt: Date | null }>) => ({
    read: (address: { subject: string }) => Promise.resolve(stored[address.subject] ?? null),
  });
  const now = Date.parse('2030-01-01T00:00:00Z');

  it("uses the person's own unexpired token, looked up by lower-case login", async () => {
    const credentials = new GitHubCredentials({
      users: users({ octocat: { token: 'gho_octo', expiresAt: new Date(now + 1000) } }),
      app,
      now: () => now,
    });
    await expect(credentials.resolve(widgets, 'OctoCat')).resolves.toEqual({
      token: 'gho_octo',
      source: 'user',
    });
  });

  it('falls back to the App for an unknown user, an expired token or one that cannot be opened', async () => {
    const credentials = new GitHubCredentials({
      users: {
        read: (address) =>
          address.subject === 'broken'
            ? Promise.reject(new AppError('CONFIG_INVALID', 'sealed under a retired key'))
            : users({ old: { token: 'gho_old', expiresAt: new Date(now - 1) } }).read(address),
      },
      app,
      now: () => now,
    });
    for (const login of ['stranger', 'old', 'broken', undefined]) {
      await expect(credentials.resolve(widgets, login)).resolves.toEqual({
        token: 'ghs_app',
        source: 'app',
      });
    }
  });

  it('fails cleanly with neither a user token nor an App', async () => {
    const provider = new GitHubCredentials({ users: users({}) }).providerFor('octocat');
    await expect(provider(widgets)).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: expect.stringContaining('GITHUB_APP_ID'),
    });
  });
});
