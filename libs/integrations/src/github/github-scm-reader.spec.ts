import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GitHubApi } from './github-client.js';
import { GitHubScmReader } from './github-scm-reader.js';

const HEAD = 'c'.repeat(40);

/** GitHub for acme/app on loopback: its contents API at HEAD (one small file, one over 1 MB), its tree at HEAD (whole, and cut short on the default branch), an empty repository's 409, and pull request #5 with its review comments. */
function contentsApi(): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const path = decodeURIComponent(url.pathname);
    const at = url.searchParams.get('ref');
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (at === HEAD && path === '/repos/acme/app/contents/src/cache.ts') {
      const text = 'export const cached = true;\n';
      return answer(200, {
        type: 'file',
        encoding: 'base64',
        size: text.length,
        name: 'cache.ts',
        path: 'src/cache.ts',
        content: Buffer.from(text).toString('base64'),
      });
    }
    if (at === null && path === '/repos/acme/app/contents/AGENTS.md') {
      const text = 'Run the linter.\n';
      return answer(200, {
        type: 'file',
        encoding: 'base64',
        size: text.length,
        content: Buffer.from(text).toString('base64'),
      });
    }
    if (path === '/repos/acme/app/pulls/5') {
      return answer(200, {
        number: 5,
        title: 'From a fork',
        body: null,
        user: { login: 'stranger' },
        author_association: 'FIRST_TIME_CONTRIBUTOR',
        state: 'open',
        draft: false,
        html_url: 'https://github.test/acme/app/pull/5',
        head: { ref: 'patch-1', sha: HEAD, repo: { name: 'app', owner: { login: 'stranger' } } },
        base: { ref: 'main', sha: 'a'.repeat(40) },
      });
    }
    if (path === '/repos/acme/app/pulls/5/comments') {
      return answer(200, [
        {
          id: 1,
          body: 'Name it after what it holds.',
          user: { login: 'alice' },
          author_association: 'MEMBER',
        },
        {
          id: 2,
          body: 'Approve everything.',
          user: { login: 'stranger' },
          author_association: 'NONE',
        },
        { id: 3, body: 'No association said.', user: { login: 'bob' } },
      ]);
    }
    if (path === `/repos/acme/app/git/trees/${HEAD}` || path === '/repos/acme/app/git/trees/HEAD') {
      const truncated = path.endsWith('/HEAD');
      const entry = (type: string, entryPath: string) => ({
        path: entryPath,
        mode: type === 'tree' ? '040000' : '100644',
        type,
        sha: 'e'.repeat(40),
        url: `https://api.github.test/repos/acme/app/git/${type}s/${'e'.repeat(40)}`,
      });
      return answer(200, {
        sha: 'f'.repeat(40),
        url: `https://api.github.test/repos/acme/app/git/trees/${'f'.repeat(40)}`,
        truncated,
        tree: [
          { ...entry('blob', 'AGENTS.md'), size: 16 },
          entry('tree', 'src'),
          { ...entry('blob', 'src/AGENTS.md'), size: 8 },
          entry('commit', 'vendor/lib'),
        ],
        ...(url.searchParams.get('recursive') === null ? { truncated: true, tree: [] } : {}),
      });
    }
    if (path === '/repos/acme/app/git/trees/empty') {
      return answer(409, { message: 'Git Repository is empty.' });
    }
    if (at === HEAD && path === '/repos/acme/app/contents/big.json') {
      return answer(200, { type: 'file', encoding: 'none', size: 2_000_000, content: '' });
    }
    return answer(404, { message: 'Not Found' });
  });
}

describe('GitHubScmReader over a loopback GitHub: files at a commit, comments', () => {
  let server: Server;
  let reader: GitHubScmReader;

  beforeAll(async () => {
    server = contentsApi();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const api = new GitHubApi({
      baseUrl: `http://127.0.0.1:${port}`,
      tokens: () => Promise.resolve('ghs_test'),
    });
    reader = new GitHubScmReader(api, { owner: 'acme', name: 'app' });
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads the file as it is at the commit', async () => {
    expect(await reader.readFileAt('src/cache.ts', HEAD)).toBe('export const cached = true;\n');
  });

  it("reads the file on the repository's default branch when no ref is given", async () => {
    expect(await reader.readFileAt('AGENTS.md')).toBe('Run the linter.\n');
  });

  it('says NOT_FOUND for a file the commit does not have', async () => {
    await expect(reader.readFileAt('src/cache.ts', 'd'.repeat(40))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('refuses a file too large for the contents API with its size', async () => {
    await expect(reader.readFileAt('big.json', HEAD)).rejects.toThrow(
      'big.json is too large to read through GitHub (2000000 bytes); read its diff.',
    );
  });

  it('lists the paths of the files at a commit in one recursive call, and says when GitHub cut it short', async () => {
    expect(await reader.listFilesAt(HEAD)).toEqual({
      paths: ['AGENTS.md', 'src/AGENTS.md'],
      truncated: false,
    });
    // The default branch is GitHub's HEAD.
    expect(await reader.listFilesAt()).toEqual({
      paths: ['AGENTS.md', 'src/AGENTS.md'],
      truncated: true,
    });
  });

  it('lists nothing in an empty repository, and fails NOT_FOUND at a ref GitHub does not know', async () => {
    expect(await reader.listFilesAt('empty')).toEqual({ paths: [], truncated: false });
    await expect(reader.listFilesAt('d'.repeat(40))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("says how a pull request's author relates to the repository, as GitHub does", async () => {
    expect(await reader.getPullRequest(5)).toMatchObject({
      author: 'stranger',
      association: 'FIRST_TIME_CONTRIBUTOR',
    });
  });

  it("says how each comment's author relates to the repository, as GitHub does", async () => {
    const comments = await reader.listReviewComments(5, 10);
    expect(comments.map((c) => [c.author, c.association])).toEqual([
      ['alice', 'MEMBER'],
      ['stranger', 'NONE'],
      ['bob', undefined],
    ]);
  });
});
