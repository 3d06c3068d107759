import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { sign } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { githubAppKeys } from './app-env.js';
import { DEFAULT_INSTALLATION_PERMISSIONS, FakeGitHub } from './fake-github.js';

const REPO = 'acme/widgets';
const APP_ID = '77';

/** Git in a child process, awaited: the fake serving it runs on this process's event loop. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('git', ['-c', 'safe.directory=*', ...args], {
    cwd,
    encoding: 'utf8',
  });
  return stdout.trim();
}

/** What a push said on stderr when it failed; null when it went through. */
async function pushError(cwd: string, ...args: string[]): Promise<string | null> {
  return git(cwd, 'push', ...args).then(
    () => null,
    (error: unknown) => String((error as { stderr?: string }).stderr),
  );
}

// GitHub refuses a push from an App's installation token without `workflows: write` whose commits
// create or change a file under .github/workflows/, with its reason on the ref; the fake does too,
// and lets through a person's token, a token minted with the permission, and every other push.
describe('FakeGitHub pushes that change workflows', () => {
  let dir: string;
  let github: FakeGitHub;
  let bare: string;
  let work: string;
  const { privateKey, publicKey } = githubAppKeys();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-fake-workflows-'));
    bare = join(dir, 'remotes', `${REPO}.git`);
    await mkdir(bare, { recursive: true });
    await git(bare, 'init', '--quiet', '--bare', '--initial-branch=main');
    await git(bare, 'config', 'http.receivepack', 'true');
    github = new FakeGitHub({ root: join(dir, 'remotes'), app: { id: APP_ID, publicKey } });
    github.addRepository(REPO, { installationId: 5 });
    await github.start();
    work = join(dir, 'work');
    await mkdir(work);
    await git(work, 'init', '--quiet', '--initial-branch=main');
    await commit('README.md');
    const { token } = await github.mint({ repository: REPO });
    expect(await pushError(work, remote(token), 'HEAD:refs/heads/main')).toBe(null);
  }, 60_000);

  afterAll(async () => {
    await github?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const remote = (token: string) => {
    const url = new URL(`${github.origin}/${REPO}.git`);
    url.username = 'x-access-token';
    url.password = token;
    return url.href;
  };

  async function commit(...files: string[]): Promise<string> {
    for (const file of files) {
      await mkdir(dirname(join(work, file)), { recursive: true });
      await writeFile(join(work, file), `${file} ${Math.random()}\n`);
      await git(work, 'add', file);
    }
    await git(work, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'c');
    return git(work, 'rev-parse', 'HEAD');
  }

  const remoteHead = (branch: string) =>
    git(bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`).catch(() => null);

  /** An installation token as `POST /app/installations/<id>/access_tokens` answers it. */
  async function accessToken(body: object): Promise<{ token: string; permissions: object }> {
    const now = Math.floor(Date.now() / 1000);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iat: now - 60, exp: now + 540, iss: APP_ID })}`;
    const jwt = `${unsigned}.${sign('sha256', Buffer.from(unsigned), privateKey).toString('base64url')}`;
    const answer = await fetch(`${github.origin}/app/installations/5/access_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(201);
    return (await answer.json()) as { token: string; permissions: object };
  }

  it("refuses an installation token's push that adds a workflow, with GitHub's reason, and keeps the ref", async () => {
    const { token, permissions } = await accessToken({ repositories: ['widgets'] });
    expect(permissions).toEqual(DEFAULT_INSTALLATION_PERMISSIONS);
    const before = await git(work, 'rev-parse', 'HEAD');
    await git(work, 'push', '--quiet', remote(token), 'HEAD:refs/heads/ci');
    await commit('.github/workflows/ci.yml', 'src/app.ts');

    const refused = await pushError(work, remote(token), 'HEAD:refs/heads/ci');

    expect(refused).toContain(
      ' ! [remote rejected] HEAD -> ci (refusing to allow a GitHub App to create or update ' +
        'workflow `.github/workflows/ci.yml` without `workflows` permission)',
    );
    expect(await remoteHead('ci')).toBe(before);
    // A new branch is refused the same; a push that changes no workflow goes through.
    expect(await pushError(work, remote(token), 'HEAD:refs/heads/fresh')).toContain(
      '! [remote rejected] HEAD -> fresh (refusing to allow a GitHub App',
    );
    expect(await remoteHead('fresh')).toBe(null);
    await git(work, 'reset', '--quiet', '--hard', before);
    const plain = await commit('src/other.ts');
    expect(await pushError(work, remote(token), 'HEAD:refs/heads/ci')).toBe(null);
    expect(await remoteHead('ci')).toBe(plain);
  }, 60_000);

  it('lets a token minted with workflows: write, or a person token, push a workflow change', async () => {
    const asked = { contents: 'write', workflows: 'write' };
    const { token, permissions } = await accessToken({ permissions: asked });
    expect(permissions).toEqual(asked);
    const edited = await commit('.github/workflows/ci.yml');
    expect(await pushError(work, remote(token), 'HEAD:refs/heads/allowed')).toBe(null);
    expect(await remoteHead('allowed')).toBe(edited);

    github.addUserToken('gho_person', 'octocat');
    const again = await commit('.github/workflows/release.yml');
    expect(await pushError(work, remote('gho_person'), 'HEAD:refs/heads/person')).toBe(null);
    expect(await remoteHead('person')).toBe(again);
  }, 60_000);

  it('mints with what the installation grants once an admin grants workflows, not before', async () => {
    const before = (await github.mint({ repository: REPO })).token;
    github.grant({ ...DEFAULT_INSTALLATION_PERMISSIONS, workflows: 'write' });
    const after = (await github.mint({ repository: REPO })).token;
    const edited = await commit('.github/workflows/lint.yml');

    expect(await pushError(work, remote(before), 'HEAD:refs/heads/granted')).toContain(
      'workflow `.github/workflows/lint.yml` without `workflows` permission',
    );
    expect(await pushError(work, remote(after), 'HEAD:refs/heads/granted')).toBe(null);
    expect(await remoteHead('granted')).toBe(edited);
    github.grant(DEFAULT_INSTALLATION_PERMISSIONS);
  }, 60_000);

  it("still runs the repository's own receive hooks", async () => {
    const hook = join(bare, 'hooks', 'pre-receive');
    await writeFile(hook, '#!/bin/sh\necho "pushes are frozen" >&2\nexit 1\n', { mode: 0o755 });
    await commit('src/frozen.ts');
    const refused = await pushError(
      work,
      remote((await github.mint({ repository: REPO })).token),
      'HEAD:refs/heads/frozen',
    );
    await rm(hook);
    expect(refused).toContain('pushes are frozen');
    expect(await remoteHead('frozen')).toBe(null);
  }, 60_000);
});
