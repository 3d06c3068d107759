import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FakeGitHub } from './fake-github.js';

const REPO = 'acme/widgets';

/** Git in a child process, awaited: the fake serving it runs on this process's event loop. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('git', ['-c', 'safe.directory=*', ...args], {
    cwd,
    encoding: 'utf8',
  });
  return stdout.trim();
}

// A pull request's head is its branch's commit: a push through the fake's git moves the head of
// the open pull requests on that branch of the served repository, as GitHub's, and not of a
// closed one or a fork's.
describe('FakeGitHub pull request heads', () => {
  let dir: string;
  let github: FakeGitHub;
  let work: string;
  let api: (path: string) => Promise<{ status: number; body: unknown }>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-fake-push-'));
    const bare = join(dir, 'remotes', `${REPO}.git`);
    await mkdir(bare, { recursive: true });
    await git(bare, 'init', '--quiet', '--bare', '--initial-branch=main');
    await git(bare, 'config', 'http.receivepack', 'true');
    github = new FakeGitHub({ root: join(dir, 'remotes') });
    github.addRepository(REPO);
    const origin = await github.start();
    const { token } = await github.mint({ repository: REPO });
    api = async (path) => {
      const response = await fetch(`${origin}${path}`, {
        headers: { authorization: `token ${token}` },
      });
      return { status: response.status, body: await response.json() };
    };
    const url = new URL(`${origin}/${REPO}.git`);
    url.username = 'x-access-token';
    url.password = token;
    work = join(dir, 'work');
    await mkdir(work);
    await git(work, 'init', '--quiet', '--initial-branch=main');
    await git(work, 'remote', 'add', 'origin', url.href);
  }, 60_000);

  afterAll(async () => {
    await github?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function commitAndPush(branch: string, file: string): Promise<string> {
    await writeFile(join(work, file), `${file}\n`);
    await git(work, 'add', file);
    await git(work, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', file);
    await git(work, 'push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`);
    return await git(work, 'rev-parse', 'HEAD');
  }

  it('moves the open pull requests of the pushed branch to its new commit', async () => {
    const first = await commitAndPush('feature', 'a.txt');
    const pull = (number: number, extra: object) => ({
      number,
      title: `#${number}`,
      body: '',
      draft: false,
      state: 'open' as const,
      head: 'feature',
      base: 'main',
      requestedReviewers: [],
      headSha: first,
      ...extra,
    });
    const open = pull(1, {});
    const closed = pull(2, { state: 'closed' });
    const fromFork = pull(3, { headRepository: 'someone/widgets' });
    github.state.pulls.set(REPO, [open, closed, fromFork]);

    const second = await commitAndPush('feature', 'b.txt');
    // The fake moves heads once git's answer is written; the push returned after it.
    const served = await fetch(`${github.origin}/repos/${REPO}/pulls/1`, {
      headers: { authorization: `token ${(await github.mint({ repository: REPO })).token}` },
    });
    expect(((await served.json()) as { head: { sha: string } }).head.sha).toBe(second);
    expect([open.headSha, closed.headSha, fromFork.headSha]).toEqual([second, first, first]);
  }, 60_000);

  it("answers the contents API from the served repository's commits, as GitHub does", async () => {
    await commitAndPush('main', 'base.txt');
    const onFeature = await commitAndPush('docs', 'docs.txt');
    const file = (text: string) => ({
      type: 'file',
      encoding: 'base64',
      content: Buffer.from(text).toString('base64'),
    });
    const contents = `/repos/${REPO}/contents`;

    // The default branch without a ref; a branch or a commit with one; GitHub's 404 otherwise.
    expect(await api(`${contents}/base.txt`)).toEqual({
      status: 200,
      body: expect.objectContaining(file('base.txt\n')),
    });
    expect(await api(`${contents}/docs.txt?ref=${onFeature}`)).toEqual({
      status: 200,
      body: expect.objectContaining(file('docs.txt\n')),
    });
    expect((await api(`${contents}/docs.txt`)).status).toBe(404);
    expect((await api(`${contents}/nothing.txt?ref=docs`)).status).toBe(404);
  });
});
