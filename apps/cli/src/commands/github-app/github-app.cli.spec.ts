import { AppError } from '@caravel/errors';
import { githubAppManifest } from '@caravel/integrations';
import { FakeGithubAppManifest } from '@caravel/testing';
import { createPrivateKey } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordingIo } from '../../testing/recording-io.js';
import { runCli, type CliIo } from '../cli.js';
import { createGithubApp } from './github-app.cli.js';

const PUBLIC_URL = 'https://caravel.acme.dev';

/** A recording io that hands over the loopback page `create` prints, once it prints it. */
function watchedIo(): CliIo & { written: string[]; errors: string[]; page: Promise<string> } {
  const io = recordingIo();
  let found!: (url: string) => void;
  const page = new Promise<string>((resolve) => (found = resolve));
  return {
    ...io,
    page,
    out: (text) => {
      io.out(text);
      const url = /Open (http:\/\/127\.0\.0\.1:\d+\/)/.exec(text)?.[1];
      if (url) found(url);
    },
  };
}

/**
 * What a browser does with the loopback page: reads its form, posts the manifest where the form
 * says (GitHub, which sends it back to the callback), then follows that redirect.
 */
async function registerInBrowser(pageUrl: string): Promise<{ status: number; body: string }> {
  const html = await (await fetch(pageUrl)).text();
  const action = /<form id="register" method="post" action="([^"]+)"/.exec(html)?.[1];
  const manifest = /name="manifest" value="([^"]+)"/.exec(html)?.[1];
  if (!action || !manifest) throw new Error(`no registration form in ${html}`);
  const unescape = (text: string) =>
    text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) =>
      name === 'amp'
        ? '&'
        : name === 'lt'
          ? '<'
          : name === 'gt'
            ? '>'
            : name === 'quot'
              ? '"'
              : "'",
    );
  const posted = await fetch(unescape(action), {
    method: 'POST',
    body: new URLSearchParams({ manifest: unescape(manifest) }),
    redirect: 'manual',
  });
  const back = posted.headers.get('location');
  if (posted.status !== 302 || !back) throw new Error(`GitHub answered ${posted.status}`);
  const answer = await fetch(back);
  return { status: answer.status, body: await answer.text() };
}

/** The env file's `KEY=value` lines. */
function envOf(text: string): Record<string, string> {
  const lines = text.split('\n').filter((line) => /^[A-Z_]+=/.test(line));
  return Object.fromEntries(
    lines.map((line): [string, string] => [
      line.slice(0, line.indexOf('=')),
      line.slice(line.indexOf('=') + 1),
    ]),
  );
}

describe('caravel github-app', () => {
  let github: FakeGithubAppManifest;
  let env: Record<string, string>;
  let dir: string;

  beforeEach(async () => {
    github = new FakeGithubAppManifest();
    const origin = await github.listen();
    env = { GITHUB_HOST: origin, GITHUB_API_URL: origin };
    dir = mkdtempSync(join(tmpdir(), 'caravel-github-app-'));
  });

  afterEach(async () => {
    await github.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the manifest for the public URLs it is given', async () => {
    const io = recordingIo();
    const args = ['manifest', '--url', PUBLIC_URL, '--dashboard-url', 'https://dash.acme.dev'];
    expect(await runCli(['github-app', ...args], env, io)).toBe(0);
    expect(JSON.parse(io.written.join(''))).toEqual(
      githubAppManifest({ ingressUrl: PUBLIC_URL, dashboardUrl: 'https://dash.acme.dev' }),
    );
  });

  it('asks for workflows: write only with --workflows', async () => {
    const io = recordingIo();
    const args = ['manifest', '--url', PUBLIC_URL, '--workflows'];
    expect(await runCli(['github-app', ...args], env, io)).toBe(0);
    const printed = JSON.parse(io.written.join('')) as { default_permissions: object };
    expect(printed).toEqual(githubAppManifest({ ingressUrl: PUBLIC_URL, workflows: true }));
    expect(printed.default_permissions).toMatchObject({ workflows: 'write' });
  });

  it('registers the App on the organization and writes its five credentials to a new 0600 file', async () => {
    const io = watchedIo();
    const out = join(dir, 'app.env');
    const args = ['create', '--url', PUBLIC_URL, '--org', 'acme', '--out', out];
    const running = runCli(['github-app', ...args], env, io);
    const browser = await registerInBrowser(await io.page);
    expect(await running).toBe(0);

    expect(browser).toMatchObject({ status: 200, body: expect.stringContaining(out) as unknown });
    expect(github.apps).toHaveLength(1);
    const [app] = github.apps;
    expect(app?.organization).toBe('acme');
    expect(app?.manifest).toMatchObject({
      hook_attributes: { url: `${PUBLIC_URL}/webhooks/github` },
      callback_urls: [`${PUBLIC_URL}/auth/github/callback`],
      redirect_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/callback$/) as unknown,
    });
    expect(github.callsTo({ path: '/organizations/acme/settings/apps/new' })[0]?.query).toEqual({
      state: expect.stringMatching(/^[\w-]{43}$/) as unknown,
    });

    expect(statSync(out).mode & 0o777).toBe(0o600);
    const conversion = app?.conversion ?? {};
    const written = envOf(readFileSync(out, 'utf8'));
    expect(written).toEqual({
      GITHUB_APP_ID: String(conversion['id']),
      GITHUB_APP_PRIVATE_KEY: expect.stringMatching(
        /^-----BEGIN RSA PRIVATE KEY-----\\n/,
      ) as unknown,
      GITHUB_WEBHOOK_SECRET: conversion['webhook_secret'],
      GITHUB_OAUTH_CLIENT_ID: conversion['client_id'],
      GITHUB_OAUTH_CLIENT_SECRET: conversion['client_secret'],
    });
    const pem = (written['GITHUB_APP_PRIVATE_KEY'] ?? '').replace(/\\n/g, '\n');
    expect(pem).toBe(String(conversion['pem']).trim());
    expect(() => createPrivateKey(pem)).not.toThrow();

    const said = io.written.join('');
    expect(said).toContain(`kubectl create secret generic caravel-secrets --from-env-file=${out}`);
    expect(said).toContain(`GITHUB_BOT_HANDLE=${app?.slug}`);
    for (const secret of ['PRIVATE KEY', conversion['client_secret'], conversion['webhook_secret']])
      expect(said).not.toContain(secret);
  });

  it('refuses to create into an existing file before asking GitHub anything', async () => {
    const first = watchedIo();
    const out = join(dir, 'app.env');
    const running = runCli(['github-app', 'create', '--url', PUBLIC_URL, '--out', out], env, first);
    await registerInBrowser(await first.page);
    expect(await running).toBe(0);
    const before = readFileSync(out, 'utf8');

    const second = recordingIo();
    expect(
      await runCli(['github-app', 'create', '--url', PUBLIC_URL, '--out', out], env, second),
    ).toBe(1);
    expect(second.errors.join('')).toMatch(
      /^caravel github-app: .*app\.env exists; caravel github-app create writes a new file and never overwrites one/,
    );
    expect(second.written.join('')).not.toContain('Open http');
    expect(readFileSync(out, 'utf8')).toBe(before);
    expect(github.apps).toHaveLength(1);
  });

  it('takes no answer with another state, writes nothing and says what to do', async () => {
    const io = watchedIo();
    const out = join(dir, 'app.env');
    const running = runCli(['github-app', 'create', '--url', PUBLIC_URL, '--out', out], env, io);
    const answer = await fetch(`${await io.page}callback?code=planted&state=not-this-one`);
    expect(answer.status).toBe(400);
    expect(await running).toBe(1);
    expect(io.errors.join('')).toMatch(
      /^caravel github-app: GitHub's answer came back with a state this registration did not send.*run caravel github-app create again/,
    );
    expect(existsSync(out)).toBe(false);
    expect(github.callsTo({ path: '/conversions' })).toEqual([]);
  });

  it("says GitHub refused when the code's conversion fails, and leaves no file", async () => {
    github.failNext(
      { method: 'POST', path: '/conversions' },
      { status: 404, body: { message: 'Not Found' } },
    );
    const io = watchedIo();
    const out = join(dir, 'app.env');
    const running = runCli(['github-app', 'create', '--url', PUBLIC_URL, '--out', out], env, io);
    const browser = await registerInBrowser(await io.page);
    expect(await running).toBe(1);
    expect(browser.status).toBe(502);
    const said = io.errors.join('');
    expect(said).toMatch(/GitHub refused to hand over the App \(404: Not Found\).*delete it/);
    expect(said).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a request that names another host (a rebound DNS name)', async () => {
    const io = watchedIo();
    const out = join(dir, 'app.env');
    const running = runCli(['github-app', 'create', '--url', PUBLIC_URL, '--out', out], env, io);
    const page = new URL(await io.page);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const asked = request(
        { host: '127.0.0.1', port: page.port, path: '/', headers: { host: 'evil.example:80' } },
        (res) => resolve(res.resume().statusCode),
      );
      asked.on('error', reject).end();
    });
    expect(status).toBe(421);
    await registerInBrowser(page.toString());
    expect(await running).toBe(0);
  });

  it('gives up when abandoned (time out, Ctrl-C) and removes the file it claimed', async () => {
    let abandon!: (error: Error) => void;
    const out = join(dir, 'app.env');
    let listening!: () => void;
    const ready = new Promise<void>((resolve) => (listening = resolve));
    const creating = createGithubApp({
      manifest: { ingressUrl: PUBLIC_URL },
      out,
      port: 0,
      githubHost: env['GITHUB_HOST'] ?? '',
      apiUrl: env['GITHUB_API_URL'] ?? '',
      abandoned: new Promise((resolve) => (abandon = resolve)),
      write: () => listening(),
    });
    await ready;
    expect(existsSync(out)).toBe(true);
    abandon(new AppError('TIMEOUT', 'GitHub did not come back'));
    await expect(creating).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(existsSync(out)).toBe(false);
  });
});
