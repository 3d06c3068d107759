import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isAppError } from '@caravel/errors';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readReviewSet } from './review-set-files.js';

const PATCH = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n';

/** A published benchmark on loopback: sets at /sets/*.json, patches beside them. */
const files: Record<string, string> = {
  '/sets/bench.json': JSON.stringify({
    repository: 'https://git.example/acme/widgets.git',
    cases: [
      { id: 'one', base: 'main', patch: 'patches/one.diff', defects: [] },
      { id: 'two', base: 'main', head: 'feature', defects: [] },
    ],
  }),
  '/sets/patches/one.diff': PATCH,
  '/sets/relative.json': JSON.stringify({
    repository: '../repo',
    cases: [{ id: 'one', base: 'main', head: 'feature', defects: [] }],
  }),
  '/sets/lost-patch.json': JSON.stringify({
    repository: 'https://git.example/acme/widgets.git',
    cases: [{ id: 'one', base: 'main', patch: 'patches/none.diff', defects: [] }],
  }),
  '/sets/broken.json': '{ not json',
};

async function refusal(path: string): Promise<string> {
  try {
    await readReviewSet(path);
  } catch (error) {
    if (isAppError(error) && error.code === 'BAD_REQUEST') return error.message;
    throw error;
  }
  throw new Error(`${path} was read`);
}

describe('a labelled set read from a URL', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const body = files[request.url ?? ''];
      response.writeHead(body === undefined ? 404 : 200).end(body ?? 'not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads its cases and each patch relative to it, named after its file', async () => {
    const set = await readReviewSet(`${base}/sets/bench.json`);
    expect(set).toMatchObject({ name: 'bench', file: `${base}/sets/bench.json` });
    expect(set.cases.map((c) => [c.id, c.repository, c.patch ?? c.head])).toEqual([
      ['one', 'https://git.example/acme/widgets.git', PATCH],
      ['two', 'https://git.example/acme/widgets.git', 'feature'],
    ]);
  });

  it('refuses a repository given as a path, a missing set or patch, and bad JSON, in one line', async () => {
    expect(await refusal(`${base}/sets/relative.json`)).toMatch(
      /cases\.0\.repository: \.\.\/repo: a set read from a URL names its repositories by URL$/,
    );
    expect(await refusal(`${base}/sets/none.json`)).toBe(
      `labelled set: ${base}/sets/none.json: HTTP 404`,
    );
    expect(await refusal(`${base}/sets/lost-patch.json`)).toContain(
      `cases.0.patch: ${base}/sets/patches/none.diff: HTTP 404`,
    );
    expect(await refusal(`${base}/sets/broken.json`)).toMatch(/broken\.json: not JSON/);
  });
});
