import { STREAMS_PER_PERSON } from '@caravel/dashboard';
import { FakeGithubOAuth } from '@caravel/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';
import { asAccount, startDashboard, signInOverHttp, type DashboardHost } from './dashboard-host.js';

const OCTOCAT = { login: 'octocat', id: 583231 };
const MALLORY = { login: 'mallory', id: 3 };

/** The routes anyone may call: the sign-in flow, whether it is on, the API's description. */
const PUBLIC = new Set([
  'get /api/auth',
  'get /api/auth/refusal',
  'get /auth/github',
  'get /auth/github/callback',
  'get /api/docs',
]);

type StreamReader = ReadableStreamDefaultReader<string>;

/** A thread's stream opened with `headers`: answered 200, read past its `retry:` line. */
async function openStream(url: string, headers: Record<string, string>): Promise<StreamReader> {
  const stream = await fetch(url, { headers });
  expect(stream.status).toBe(200);
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  expect((await reader.read()).value).toContain('retry:');
  return reader;
}

/** The stream, after a secret event, refuses (naming `why`) and ends instead of sending it. */
async function expectRefused(reader: StreamReader, why: string): Promise<void> {
  let received = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    received += chunk.value;
    if (received.includes('run-event')) break;
  }
  expect(received).not.toContain('a secret');
  expect(received).toContain('event: refused');
  expect(received).toContain(why);
  expect((await reader.read()).done).toBe(true);
}

/**
 * The dashboard as an attacker meets it over HTTP: an outsider with no session, and a signed-in
 * member who is no admin and not let into a thread's repository.
 */
describe('the dashboard under attack', () => {
  const oauth = new FakeGithubOAuth();
  let dash: DashboardHost;
  let url: string;
  let octocat: string;
  let mallory: string;
  const theirThread = randomUUID();

  beforeAll(async () => {
    await oauth.listen();
    dash = await startDashboard(undefined, oauth);
    url = dash.host.url;
    await dash.thread(theirThread, 'octocat only', 'github:octocat');
    octocat = (await signInOverHttp(url, oauth, OCTOCAT)).split(';')[0] ?? '';
    mallory = (await signInOverHttp(url, oauth, MALLORY)).split(';')[0] ?? '';
  });

  afterAll(async () => {
    await dash?.close();
    await oauth.close();
  });

  const filled = (path: string) =>
    path.replace(/\{(\w+)\}/g, (_, name: string) =>
      name === 'id' || name === 'replayId' ? randomUUID() : name === 'number' ? '1' : 'x',
    );

  it('answers an outsider 401 on every route it declares but the sign-in, and 403 to a forged post', async () => {
    const docs = (await (await fetch(`${url}/api/docs`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const answers: string[] = [];
    for (const [path, methods] of Object.entries(docs.paths)) {
      for (const method of Object.keys(methods)) {
        if (PUBLIC.has(`${method} ${path}`)) continue;
        const response = await fetch(`${url}${filled(path)}`, {
          method: method.toUpperCase(),
          redirect: 'manual',
          headers: { 'content-type': 'application/json', origin: url },
          ...(method === 'get' ? {} : { body: '{}' }),
        });
        answers.push(`${method} ${path} ${response.status}`);
      }
    }
    expect(answers.length).toBeGreaterThan(40);
    expect(answers.filter((answer) => !answer.endsWith(' 401'))).toEqual([]);
  });

  it('keeps the session cookie from script and from other sites', async () => {
    const cookie = await signInOverHttp(url, oauth, OCTOCAT);
    expect(cookie.split('; ').slice(1).sort()).toEqual(
      ['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Lax'].sort(),
    );
  });

  it('signs nobody in from a forged or replayed OAuth callback, and always lands on its own page', async () => {
    const start = await fetch(`${url}/auth/github?next=https://evil.example/`, {
      redirect: 'manual',
    });
    const nonce = start.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    const authorize = new URL(start.headers.get('location') ?? '');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${url}/auth/github/callback`);
    const back = await fetch(
      (await fetch(authorize, { redirect: 'manual' })).headers.get('location') ?? '',
      { redirect: 'manual', headers: { cookie: nonce } },
    );
    expect(back.headers.get('location')).toBe('/#/threads');
    const callback = new URL(back.url);
    // Another browser (no nonce cookie), or the same callback again: no session, back to sign-in.
    for (const cookie of ['', nonce]) {
      const replayed = await fetch(callback, { redirect: 'manual', headers: { cookie } });
      expect(replayed.headers.getSetCookie().some((c) => c.startsWith('caravel_session=e'))).toBe(
        false,
      );
      expect(replayed.headers.get('location')).toMatch(/^\/#\/sign-in\?refusal=/);
    }
    const forged = `${url}/auth/github/callback?code=x&state=y&next=https://evil.example/`;
    const refused = await fetch(forged, { redirect: 'manual', headers: { cookie: nonce } });
    expect(refused.headers.get('location')).toMatch(/^\/#\/sign-in\?refusal=/);
  });

  it('shows on its sign-in page only the refusals it made: a link cannot put words there', async () => {
    const eve = await asAccount(oauth, { login: 'eve', id: 66 }, async () => {
      const start = await fetch(`${url}/auth/github`, { redirect: 'manual' });
      const nonce = start.headers.getSetCookie()[0]?.split(';')[0] ?? '';
      const authorize = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
      return fetch(authorize.headers.get('location') ?? '', {
        redirect: 'manual',
        headers: { cookie: nonce },
      });
    });
    const landing = new URL(eve.headers.get('location') ?? '', url);
    const query = new URLSearchParams(landing.hash.replace(/^#\/sign-in\?/, ''));
    expect([...query.keys()]).toEqual(['refusal']);
    const refusal = async (sealed: string) => {
      const query = new URLSearchParams({ sealed }).toString();
      const answer = await fetch(`${url}/api/auth/refusal?${query}`);
      return { status: answer.status, body: await answer.json() };
    };
    expect(await refusal(query.get('refusal') ?? '')).toEqual({
      status: 200,
      body: {
        code: 'FORBIDDEN',
        message: expect.stringMatching(/^eve may not sign in/) as unknown,
      },
    });
    expect((await refusal('Your account is locked: call +1 555 0100')).status).toBe(404);
  });

  it('refuses a signed-in change from any origin but its own, and gives other origins no CORS', async () => {
    const stop = `${url}/api/threads/${theirThread}/stop`;
    const sameHostOtherPort = url.replace(/:\d+$/, ':1');
    for (const origin of ['https://evil.example', 'null', sameHostOtherPort, undefined]) {
      const response = await fetch(stop, {
        method: 'POST',
        headers: {
          cookie: octocat,
          'content-type': 'application/json',
          'sec-fetch-site': 'cross-site',
          ...(origin ? { origin } : {}),
        },
        body: '{}',
      });
      expect([origin, response.status]).toEqual([origin, 403]);
    }
    // A form or text post (what another site can send without asking) is refused even from here.
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data']) {
      const response = await fetch(`${url}/api/threads/${theirThread}/actions`, {
        method: 'POST',
        headers: { cookie: octocat, origin: url, 'content-type': type },
        body: 'kind=command&text=id',
      });
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect([type, response.status, error.message]).toEqual([
        type,
        400,
        expect.stringContaining('a signed-in change takes a JSON body'),
      ]);
    }
    const preflight = await fetch(stop, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    const read = await fetch(`${url}/api/threads`, {
      headers: { cookie: octocat, origin: 'https://evil.example' },
    });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("gives a member no way into another's thread, tokens, profile or the team's settings", async () => {
    const as = (cookie: string, method: string, path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method,
        headers: { cookie, origin: url, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const thread = `/api/threads/${theirThread}`;
    const tried = [
      ['POST', `${thread}/actions`, { kind: 'message', text: 'rm -rf /' }],
      ['POST', `${thread}/actions`, { kind: 'command', text: 'cat ~/.ssh/id_rsa' }],
      ['POST', `${thread}/chat`, { text: 'what secrets are here?' }],
      ['POST', `${thread}/sandbox/recreate`, undefined],
      ['POST', `${thread}/replays`, {}],
      ['GET', `${thread}/replays/${randomUUID()}`, undefined],
    ] as const;
    for (const [method, path, body] of tried) {
      const response = await as(mallory, method, path, body);
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
    const made = await as(octocat, 'POST', '/api/tokens', { name: 'ci', scope: 'act', days: 1 });
    const token = (await made.json()) as { id: string; token: string };
    expect((await as(mallory, 'GET', '/api/tokens?login=octocat')).status).toBe(403);
    expect((await as(mallory, 'DELETE', `/api/tokens/${token.id}`)).status).toBe(404);
    const stillWorks = await fetch(`${url}${thread}`, {
      headers: { authorization: `Bearer ${token.token}` },
    });
    expect(stillWorks.status).toBe(200);
    // Their own profile, and an admin anyone's.
    expect((await as(octocat, 'GET', '/api/profiles/github:octocat')).status).toBe(200);
    const hubot = (await signInOverHttp(url, oauth, { login: 'hubot', id: 7 })).split(';')[0];
    expect((await as(hubot ?? '', 'GET', '/api/profiles/github:octocat')).status).toBe(200);
    const refused = [
      ['GET', '/api/profiles/github:octocat', undefined],
      ['PUT', '/api/profiles/github:octocat', { model: null }],
      ['GET', '/api/instructions/github:octocat', undefined],
      ['PUT', '/api/instructions/github:octocat', { instructions: 'push to main' }],
      ['GET', '/api/team-defaults', undefined],
      ['PUT', '/api/budgets/team', { budgetUsd: 1000 }],
      ['PUT', '/api/repositories/acme/web', { agent: true }],
      ['GET', '/api/dead-letters', undefined],
      ['GET', '/api/sessions?login=octocat', undefined],
      ['DELETE', '/api/sessions/octocat', undefined],
    ] as const;
    for (const [method, path, body] of refused) {
      const response = await as(mallory, method, path, body);
      expect([method, path, response.status]).toEqual([method, path, 403]);
    }
  });

  it('marks every API answer as data that is not kept, sniffed or framed, and the page as its own scripts only', async () => {
    const made = await fetch(`${url}/api/tokens`, {
      method: 'POST',
      headers: { cookie: octocat, origin: url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kept?', scope: 'read', days: 1 }),
    });
    const answers = [
      made,
      await fetch(`${url}/api/threads`, { headers: { cookie: octocat } }),
      await fetch(`${url}/api/threads/${randomUUID()}`, { headers: { cookie: octocat } }),
      await fetch(`${url}/api/no-such-route`),
      await fetch(`${url}/auth/github`, { redirect: 'manual' }),
    ];
    for (const answer of answers) {
      expect({
        status: answer.status,
        cache: answer.headers.get('cache-control'),
        sniff: answer.headers.get('x-content-type-options'),
        csp: answer.headers.get('content-security-policy'),
        poweredBy: answer.headers.get('x-powered-by'),
      }).toEqual({
        status: answer.status,
        cache: 'no-store',
        sniff: 'nosniff',
        csp: "default-src 'none'; frame-ancestors 'none'",
        poweredBy: null,
      });
    }
    const page = await fetch(`${url}/`);
    expect(page.headers.get('content-security-policy')).toMatch(
      /script-src 'self';.*frame-ancestors 'none'/,
    );
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-powered-by')).toBeNull();
  });

  it('lets one person hold only so many thread streams open: one more is 429', async () => {
    const open = () =>
      fetch(`${url}/api/threads/${theirThread}/stream`, { headers: { cookie: octocat } });
    const held = await Promise.all(Array.from({ length: STREAMS_PER_PERSON }, open));
    try {
      expect(held.map((stream) => stream.status)).toEqual(held.map(() => 200));
      const more = await open();
      expect([
        more.status,
        ((await more.json()) as { error: { code: string } }).error.code,
      ]).toEqual([429, 'RATE_LIMITED']);
    } finally {
      for (const stream of held) await stream.body?.cancel();
    }
  });

  it("pages a thread's events: one read never answers more than a page of its history", async () => {
    const long = await dash.thread(randomUUID(), 'a long thread', 'github:octocat');
    for (let step = 0; step < 12; step += 1) await dash.event(long, { step });
    const page = async (query: string) => {
      const response = await fetch(`${url}/api/threads/${long}/events${query}`, {
        headers: { cookie: octocat },
      });
      return ((await response.json()) as { position: number }[]).map((e) => e.position);
    };
    expect(await page('?limit=5')).toEqual([1, 2, 3, 4, 5]);
    expect(await page('?after=10&limit=5')).toEqual([11, 12]);
    expect((await page('')).length).toBe(12);
    const tooMany = await fetch(`${url}/api/threads/${long}/events?limit=1001`, {
      headers: { cookie: octocat },
    });
    expect(tooMany.status).toBe(400);
  });

  it('ends a thread stream whose reader lost access before it delivers anything more', async () => {
    const made = await fetch(`${url}/api/tokens`, {
      method: 'POST',
      headers: { cookie: octocat, origin: url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'stream', scope: 'read', days: 1 }),
    });
    const token = (await made.json()) as { id: string; token: string };
    const reader = await openStream(`${url}/api/threads/${theirThread}/stream`, {
      authorization: `Bearer ${token.token}`,
    });
    const revoked = await fetch(`${url}/api/tokens/${token.id}`, {
      method: 'DELETE',
      headers: { cookie: octocat, origin: url },
    });
    expect(revoked.status).toBe(204);
    await dash.event(theirThread, { thought: 'a secret the revoked token must not read' });
    await expectRefused(reader, 'UNAUTHENTICATED');
  });

  it('refuses a stolen session cookie once its browser signed out: the session ended server-side', async () => {
    const cookie = (await signInOverHttp(url, oauth, OCTOCAT)).split(';')[0] ?? '';
    const stolen = cookie; // copied off the laptop before its owner signed out
    expect((await fetch(`${url}/api/me`, { headers: { cookie: stolen } })).status).toBe(200);
    const out = await fetch(`${url}/auth/sign-out`, {
      method: 'POST',
      headers: { cookie, origin: url },
    });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()).toEqual([expect.stringMatching(/^caravel_session=;/)]);
    const replays = [
      await fetch(`${url}/api/me`, { headers: { cookie: stolen } }),
      await fetch(`${url}/api/threads/${theirThread}`, { headers: { cookie: stolen } }),
      await fetch(`${url}/api/threads/${theirThread}/stop`, {
        method: 'POST',
        headers: { cookie: stolen, origin: url },
      }),
    ];
    for (const replay of replays) {
      const { error } = (await replay.json()) as { error?: { message: string } };
      expect([replay.status, error?.message]).toEqual([
        401,
        'this session was signed out: sign in again',
      ]);
    }
  });

  it("lets an admin end a person's sessions: their other browser is refused and its open stream ends", async () => {
    const laptop = (await signInOverHttp(url, oauth, OCTOCAT)).split(';')[0] ?? '';
    const phone = (await signInOverHttp(url, oauth, OCTOCAT)).split(';')[0] ?? '';
    const listed = await fetch(`${url}/api/sessions`, { headers: { cookie: laptop } });
    const sessions = (await listed.json()) as { current: boolean }[];
    expect(sessions.filter((session) => session.current).length).toBe(1);
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    const reader = await openStream(`${url}/api/threads/${theirThread}/stream`, { cookie: phone });

    const hubot = (await signInOverHttp(url, oauth, { login: 'hubot', id: 7 })).split(';')[0];
    const ended = await fetch(`${url}/api/sessions/octocat`, {
      method: 'DELETE',
      headers: { cookie: hubot ?? '', origin: url },
    });
    expect(ended.status).toBe(200);
    expect(((await ended.json()) as { ended: number }).ended).toBeGreaterThanOrEqual(2);
    const next = await fetch(`${url}/api/threads`, { headers: { cookie: laptop } });
    const { error } = (await next.json()) as { error?: { message: string } };
    expect([next.status, error?.message]).toEqual([
      401,
      'an admin ended this session: sign in again',
    ]);

    await dash.event(theirThread, { thought: 'a secret the ended session must not read' });
    await expectRefused(reader, 'an admin ended this session');
    // Octocat signs in again (a new session): what later cases send as octocat.
    octocat = (await signInOverHttp(url, oauth, OCTOCAT)).split(';')[0] ?? '';
    expect((await fetch(`${url}/api/me`, { headers: { cookie: octocat } })).status).toBe(200);
  });
});

describe('a dashboard with a stream open', () => {
  it('ends its streams when it stops, so a member holding one open cannot keep it from stopping', async () => {
    const oauth = new FakeGithubOAuth();
    await oauth.listen();
    const dash = await startDashboard(undefined, oauth);
    const thread = await dash.thread(randomUUID(), 'watched', 'github:octocat');
    const cookie = (await signInOverHttp(dash.host.url, oauth, OCTOCAT)).split(';')[0] ?? '';
    const stream = await fetch(`${dash.host.url}/api/threads/${thread}/stream`, {
      headers: { cookie },
    });
    const reader = stream.body!.getReader();
    await reader.read(); // the stream is open
    const closing = dash.close().then(() => 'stopped');
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise((resolve) => (timer = setTimeout(resolve, 20_000, 'still running')));
    try {
      expect(await Promise.race([closing, stuck])).toBe('stopped');
      expect((await reader.read()).done).toBe(true);
    } finally {
      clearTimeout(timer);
      await reader.cancel();
      await closing;
      await oauth.close();
    }
  });
});

/** A GET with headers fetch will not send as given (`Host`). */
function rawGet(url: string, headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      response.resume();
      resolve(response);
    }).on('error', reject);
  });
}

describe('a dashboard behind TLS (DASHBOARD_PUBLIC_URL https)', () => {
  it('marks its cookies Secure and sends GitHub back to its public URL, whatever the Host says', async () => {
    const oauth = new FakeGithubOAuth();
    await oauth.listen();
    const publicUrl = 'https://caravel.example';
    const dash = await startDashboard(undefined, oauth, { DASHBOARD_PUBLIC_URL: publicUrl });
    try {
      const start = await rawGet(`${dash.host.url}/auth/github`, {
        host: 'evil.example',
        'x-forwarded-host': 'evil.example',
      });
      expect(start.headers['set-cookie']?.[0]).toMatch(/; Secure$/);
      const authorize = new URL(start.headers.location ?? '');
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${publicUrl}/auth/github/callback`);
    } finally {
      await dash.close();
      await oauth.close();
    }
  });
});
