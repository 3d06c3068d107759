import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { swegenErrorReason } from '../errors/swegen-errors.js';
import { GithubPrSource, nextLink } from './github-pr-source.js';

type Route = (req: IncomingMessage, res: ServerResponse, base: string) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A loopback fake of the GitHub REST endpoints the source uses; records every request. */
async function fakeGithub(
  routes: Record<string, Route>,
): Promise<{ base: string; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    const path = (req.url ?? '').split('?')[0] ?? '';
    const route = routes[path];
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"Not Found"}');
      return;
    }
    route(req, res, base);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, requests };
}

const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};

const files = Array.from({ length: 250 }, (_, i) => ({
  filename: `src/f${String(i).padStart(3, '0')}.js`,
  status: 'modified',
}));

describe('GithubPrSource', () => {
  it('follows Link rel="next" through every page of the file list, with the token and API version', async () => {
    const fake = await fakeGithub({
      '/repos/acme/app/pulls/9/files': (req, res, base) => {
        const page = Number(new URL(req.url ?? '', base).searchParams.get('page') ?? '1');
        const next =
          page < 3
            ? `<${base}/repos/acme/app/pulls/9/files?per_page=100&page=${page + 1}>; rel="next", <${base}/x?page=3>; rel="last"`
            : '';
        json(res, files.slice((page - 1) * 100, page * 100), next ? { link: next } : {});
      },
    });
    const source = new GithubPrSource({ apiUrl: fake.base, token: 't0k' });
    const listed = await source.listFiles('acme/app', 9);
    expect(listed).toHaveLength(250);
    expect(listed[249]).toEqual({ filename: 'src/f249.js', status: 'modified' });
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[0]?.headers['authorization']).toBe('Bearer t0k');
    expect(fake.requests[0]?.headers['x-github-api-version']).toBe('2022-11-28');
  });

  it('maps the pull request object and tells issues from pull requests', async () => {
    const fake = await fakeGithub({
      '/repos/acme/app/pulls/9': (_req, res) =>
        json(res, {
          number: 9,
          title: 'Fix',
          body: null,
          merged: true,
          merged_at: '2026-01-01T00:00:00Z',
          created_at: '2025-12-30T00:00:00Z',
          html_url: 'h',
          merge_commit_sha: 'm',
          base: {
            sha: 'b',
            ref: 'main',
            repo: { full_name: 'acme/app', clone_url: 'https://github.com/acme/app.git' },
          },
          head: { sha: 'h1', ref: 'f' },
        }),
      '/repos/acme/app/issues/3': (_req, res) =>
        json(res, { number: 3, title: 'Bug', body: 'broken' }),
      '/repos/acme/app/issues/4': (_req, res) =>
        json(res, { number: 4, title: 'A PR', pull_request: {} }),
      '/repos/acme/app/issues/9/timeline': (_req, res) =>
        json(res, [
          {
            event: 'cross-referenced',
            source: {
              type: 'issue',
              issue: { number: 12, repository_url: 'https://api.github.com/repos/Other/Lib' },
            },
          },
          { event: 'labeled' },
        ]),
    });
    const source = new GithubPrSource({ apiUrl: fake.base });
    expect(await source.getPullRequest('acme/app', 9)).toMatchObject({
      repo: 'acme/app',
      body: '',
      baseSha: 'b',
      headSha: 'h1',
      merged: true,
    });
    expect(await source.getIssue('acme/app', 3)).toEqual({
      repo: 'acme/app',
      number: 3,
      title: 'Bug',
      body: 'broken',
    });
    expect(await source.getIssue('acme/app', 4)).toBeUndefined();
    expect(await source.getIssue('acme/app', 5)).toBeUndefined();
    expect(await source.timelineIssueRefs('acme/app', 9)).toEqual([
      { repo: 'other/lib', number: 12 },
    ]);
  });

  it.each([
    [403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1000' }, 40],
    [429, { 'retry-after': '7' }, 7],
  ])('turns a %i rate limit into RATE_LIMITED with the wait', async (status, headers, wait) => {
    const fake = await fakeGithub({
      '/repos/acme/app/pulls/9/files': (_req, res) =>
        res.writeHead(status, headers).end('{"message":"rate limit"}'),
    });
    const source = new GithubPrSource({ apiUrl: fake.base, now: () => 960_000 });
    const error = await source.listFiles('acme/app', 9).catch((e: unknown) => e);
    expect(swegenErrorReason(error)).toBe('rate_limited');
    expect(error).toMatchObject({ code: 'RATE_LIMITED', details: { retryAfterSeconds: wait } });
  });

  it('says a 403 without rate-limit headers is a refusal, not a rate limit', async () => {
    const fake = await fakeGithub({
      '/repos/acme/app/pulls/9': (_req, res) => res.writeHead(403).end('nope'),
    });
    await expect(
      new GithubPrSource({ apiUrl: fake.base }).getPullRequest('acme/app', 9),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('reads the next link among several relations', () => {
    expect(nextLink('<https://x/a?page=1>; rel="prev", <https://x/a?page=3>; rel="next"')).toBe(
      'https://x/a?page=3',
    );
    expect(nextLink(null)).toBeUndefined();
  });
});
