import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeGitHub } from './fake-github.js';

const REPO = 'acme/widgets';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' }).trim();

// The git trees API over the served repository's commits, through real git, in GitHub's shape.
describe('FakeGitHub git trees', () => {
  let dir: string;
  let github: FakeGitHub;
  let commit: string;
  let api: (path: string) => Promise<{ status: number; body: unknown }>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'caravel-fake-trees-'));
    const work = join(dir, 'work');
    mkdirSync(join(work, 'src', 'parser'), { recursive: true });
    writeFileSync(join(work, 'AGENTS.md'), 'Run the linter.\n');
    writeFileSync(join(work, 'src', 'parser', 'lexer.ts'), 'export {};\n');
    git(work, 'init', '--quiet', '--initial-branch=trunk');
    git(work, 'add', '.');
    git(work, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'base');
    commit = git(work, 'rev-parse', 'HEAD');
    mkdirSync(join(dir, 'remotes', 'acme'), { recursive: true });
    git(dir, 'clone', '--quiet', '--bare', work, join(dir, 'remotes', `${REPO}.git`));
    github = new FakeGitHub({ root: join(dir, 'remotes') }).addUserToken('ghu_t', 'someone');
    github.addRepository(REPO, { defaultBranch: 'trunk' });
    const origin = await github.start();
    api = async (path) => {
      const response = await fetch(`${origin}${path}`, {
        headers: { authorization: 'token ghu_t' },
      });
      return { status: response.status, body: await response.json() };
    };
  }, 60_000);

  afterAll(async () => {
    await github?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const trees = `/repos/${REPO}/git/trees`;
  const sha = expect.stringMatching(/^[0-9a-f]{40}$/);

  it('lists every path at a commit, a branch or HEAD (the default branch), recursively', async () => {
    const answer = await api(`${trees}/${commit}?recursive=1`);
    const tree = git(join(dir, 'remotes', `${REPO}.git`), 'rev-parse', `${commit}^{tree}`);
    const url = (kind: string) => expect.stringMatching(new RegExp(`/repos/${REPO}/git/${kind}/`));

    expect(answer).toEqual({
      status: 200,
      body: {
        sha: tree,
        url: expect.stringContaining(`/repos/${REPO}/git/trees/${tree}`),
        truncated: false,
        tree: [
          { path: 'AGENTS.md', mode: '100644', type: 'blob', sha, size: 16, url: url('blobs') },
          { path: 'src', mode: '040000', type: 'tree', sha, url: url('trees') },
          { path: 'src/parser', mode: '040000', type: 'tree', sha, url: url('trees') },
          {
            path: 'src/parser/lexer.ts',
            mode: '100644',
            type: 'blob',
            sha,
            size: 11,
            url: url('blobs'),
          },
        ],
      },
    });
    expect(await api(`${trees}/trunk?recursive=1`)).toEqual(answer);
    expect(await api(`${trees}/HEAD?recursive=1`)).toEqual(answer);
  });

  it('lists only the top level without recursive, and answers 404 for a ref it does not hold', async () => {
    const top = (await api(`${trees}/${commit}`)).body as { tree: { path: string }[] };
    expect(top.tree.map((entry) => entry.path)).toEqual(['AGENTS.md', 'src']);
    expect((await api(`${trees}/${'d'.repeat(40)}?recursive=1`)).status).toBe(404);
    expect((await api(`${trees}/nowhere?recursive=1`)).status).toBe(404);
  });

  it('cuts a listing longer than the limit a test sets short, saying truncated, as GitHub does', async () => {
    github.trees.limit(REPO, 2);
    try {
      const cut = (await api(`${trees}/${commit}?recursive=1`)).body;
      expect(cut).toMatchObject({
        truncated: true,
        tree: [{ path: 'AGENTS.md' }, { path: 'src' }],
      });
      expect(await api(`${trees}/${commit}`)).toMatchObject({ body: { truncated: false } });
    } finally {
      github.trees.limit(REPO, undefined);
    }
    expect((await api(`${trees}/${commit}?recursive=1`)).body).toMatchObject({ truncated: false });
  });
});
