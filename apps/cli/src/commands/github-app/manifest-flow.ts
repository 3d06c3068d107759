import type { GithubAppManifest } from '@caravel/integrations';
import { AppError } from '@caravel/errors';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the loopback side of GitHub's manifest flow needs. */
export interface ManifestFlowOptions<T> {
  /** The manifest, once its `redirect_url` (this flow's callback) is known. */
  manifestFor(redirectUrl: string): GithubAppManifest;
  /** GitHub's web root (`GITHUB_HOST`). */
  githubHost: string;
  /** Register the App on this organisation (else on the person's own account). */
  org?: string | undefined;
  /** The loopback port (0: any free one). */
  port: number;
  /** Called once listening, with the page the person opens. */
  onListening(pageUrl: string): void;
  /** What the callback's `code` is for (the conversion); its outcome ends the flow. */
  complete(code: string): Promise<T>;
  /** What the browser reads once `complete` is done. */
  done(result: T): string;
  /** Settles, with the error to end with, when the flow is given up (time out, Ctrl-C). */
  abandoned: Promise<Error>;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

function page(res: ServerResponse, status: number, body: string, headers = {}): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'",
    ...headers,
  });
  res.end(`<!doctype html><html lang="en"><meta charset="utf-8"><title>Caravel</title>
<body>${body}</body></html>`);
}

/** The page that posts the manifest to GitHub (by itself, or with its button without script). */
function startPage(res: ServerResponse, action: URL, manifest: GithubAppManifest): void {
  const nonce = randomBytes(16).toString('base64');
  const body = `<h1>Register Caravel's GitHub App</h1>
<p>GitHub shows the App's name (you may change it), its permissions and its events. Click
<b>Create GitHub App</b> there: you come back here, and the terminal says where the App's
credentials went.</p>
<form id="register" method="post" action="${escapeHtml(action.toString())}">
<input type="hidden" name="manifest" value="${escapeHtml(JSON.stringify(manifest))}">
<button type="submit">Register it on GitHub</button></form>
<script nonce="${nonce}">document.getElementById('register').submit();</script>`;
  page(res, 200, body, {
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; form-action ${action.origin}; base-uri 'none'; frame-ancestors 'none'`,
  });
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Where GitHub registers an App from a manifest, with the flow's `state`. */
function registrationUrl(githubHost: string, org: string | undefined, state: string): URL {
  const root = githubHost.replace(/\/+$/, '');
  const path = org
    ? `/organizations/${encodeURIComponent(org)}/settings/apps/new`
    : '/settings/apps/new';
  const url = new URL(`${root}${path}`);
  url.searchParams.set('state', state);
  return url;
}

/**
 * GitHub's App manifest flow from a terminal: a page on 127.0.0.1 posts the manifest to GitHub
 * with a random `state`; GitHub sends the browser back to `/callback` with a temporary `code`,
 * taken only with that `state` (a callback with another one ends the flow: it was not sent by
 * the page this flow opened) and handed to `complete`. Requests naming another `Host` are refused
 * (a page of a rebound DNS name cannot read the state). Resolves with `complete`'s result.
 */
export async function runManifestFlow<T>(options: ManifestFlowOptions<T>): Promise<T> {
  const state = randomBytes(32).toString('base64url');
  let settle!: { resolve(value: T): void; reject(error: unknown): void };
  const outcome = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
  let host = '';
  let action: URL | undefined;
  let manifest: GithubAppManifest | undefined;
  let taken = false;

  const callback = (url: URL, res: ServerResponse) => {
    if (taken) return page(res, 409, '<p>This registration is over: see the terminal.</p>');
    taken = true;
    const code = url.searchParams.get('code');
    if (!sameSecret(url.searchParams.get('state') ?? '', state)) {
      page(res, 400, '<p>This answer was not for this registration. See the terminal.</p>');
      return settle.reject(
        new AppError(
          'FORBIDDEN',
          "GitHub's answer came back with a state this registration did not send, so it was not " +
            'taken and nothing was written: run caravel github-app create again and open only the page it prints',
        ),
      );
    }
    if (!code) {
      page(res, 400, '<p>GitHub sent no code. See the terminal.</p>');
      return settle.reject(new AppError('BAD_REQUEST', 'GitHub came back without a code'));
    }
    options.complete(code).then(
      (result) => {
        const done = escapeHtml(options.done(result));
        page(res, 200, `<h1>Done</h1><p>${done}</p><p>You may close this tab.</p>`);
        settle.resolve(result);
      },
      (error: unknown) => {
        page(res, 502, '<h1>Not done</h1><p>The terminal says why and what to do.</p>');
        settle.reject(error);
      },
    );
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.host !== host || req.method !== 'GET' || !action || !manifest) {
      return page(res, req.headers.host !== host ? 421 : 405, '<p>Not here.</p>');
    }
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname === '/') return startPage(res, action, manifest);
    if (url.pathname === '/callback') return callback(url, res);
    page(res, 404, '<p>Not here.</p>');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new AppError(
          'PRECONDITION_FAILED',
          `cannot listen on 127.0.0.1:${options.port} (${error.code ?? error.message}): choose another --port`,
        ),
      ),
    );
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    manifest = options.manifestFor(`http://${host}/callback`);
    action = registrationUrl(options.githubHost, options.org, state);
    options.onListening(`http://${host}/`);
    // Once GitHub's code is taken, the conversion's own outcome ends the flow.
    void options.abandoned.then((error) => {
      if (!taken) settle.reject(error);
    });
    return await outcome;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
