import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScopedToken, TokenScope } from '../token-source.js';
import { serveGitHttpBackend } from './git-cgi-bridge.js';

/** Settings of the fake GitHub. */
export interface FakeGitHubOptions {
  /** Directory of bare repositories, `<owner>/<name>.git`. */
  readonly root: string;
  /** The clock tokens expire by. */
  readonly now: () => number;
  /** Lifetime of a minted token (default one hour). */
  readonly tokenTtlMs?: number;
}

interface Issued {
  readonly repository: string;
  readonly expiresAt: number;
}

/**
 * A GitHub stand-in on 127.0.0.1: git smart-HTTP (through `git http-backend`) that requires
 * `Basic x-access-token:<token>`, and `GET /repos/<owner>/<name>` that requires `Bearer <token>`.
 * It mints installation-style tokens, each valid for one repository until it expires.
 */
export class FakeGitHub {
  readonly minted: ScopedToken[] = [];
  readonly accepted: string[] = [];
  readonly rejected: string[] = [];
  private readonly issued = new Map<string, Issued>();
  private readonly server: Server;

  constructor(private readonly options: FakeGitHubOptions) {
    this.server = createServer((incoming, response) => this.handle(incoming, response));
  }

  /** Mints a token for one repository (the `TokenMinter` a test hands the token source). */
  readonly mint = (scope: TokenScope): Promise<ScopedToken> => {
    const token = `ghs_fake${randomBytes(16).toString('hex')}`;
    const expiresAt = this.options.now() + (this.options.tokenTtlMs ?? 3_600_000);
    this.issued.set(token, { repository: scope.repository.toLowerCase(), expiresAt });
    const minted = { token, expiresAt: new Date(expiresAt) };
    this.minted.push(minted);
    return Promise.resolve(minted);
  };

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(incoming: IncomingMessage, response: ServerResponse): void {
    const path = new URL(incoming.url ?? '/', 'http://fake').pathname;
    const api = /^\/repos\/([^/]+)\/([^/]+)$/.exec(path);
    const git = /^\/([^/]+)\/([^/]+?)\.git\//.exec(path);
    const repository = api ? `${api[1]}/${api[2]}` : git ? `${git[1]}/${git[2]}` : undefined;
    const token = repository && this.credential(incoming, api ? 'api' : 'git');
    if (!repository || !token || !this.valid(token, repository)) {
      this.rejected.push(incoming.headers.authorization ?? '(none)');
      incoming.resume();
      response
        .writeHead(401, { 'www-authenticate': 'Basic realm="fake"' })
        .end('bad credentials\n');
      return;
    }
    this.accepted.push(token);
    if (api) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ full_name: repository, private: true }));
      return;
    }
    serveGitHttpBackend(incoming, response, this.options.root, 'x-access-token');
  }

  private credential(incoming: IncomingMessage, kind: 'api' | 'git'): string | undefined {
    const header = incoming.headers.authorization ?? '';
    if (kind === 'api') return /^Bearer (\S+)$/.exec(header)?.[1];
    const basic = /^Basic (\S+)$/.exec(header)?.[1];
    const decoded = basic ? Buffer.from(basic, 'base64').toString('utf8') : '';
    return decoded.startsWith('x-access-token:')
      ? decoded.slice('x-access-token:'.length)
      : undefined;
  }

  private valid(token: string, repository: string): boolean {
    const issued = this.issued.get(token);
    return (
      issued !== undefined &&
      issued.repository === repository.toLowerCase() &&
      issued.expiresAt > this.options.now()
    );
  }
}
