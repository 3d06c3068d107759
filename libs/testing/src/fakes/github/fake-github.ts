import { randomBytes, verify, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import {
  LoopbackApi,
  bearerToken,
  type FakeResponse,
  type RecordedCall,
} from '../http/loopback-api.js';
import { authorAssociation } from './author-association.js';
import { registerCollaboratorPermissionRoutes } from './collaborator-permission-routes.js';
import { Collaborators, registerCollaboratorRoutes } from './collaborator-routes.js';
import { CommitStatuses, registerCommitCheckRoutes } from './commit-check-routes.js';
import { compareCommits } from './compare-commits.js';
import { fileContents } from './file-contents.js';
import { branchHead, exposePullHead } from './fork-pulls.js';
import { serveGitHttpBackend } from './git-cgi-bridge.js';
import { registerTreeRoutes, type GitTrees } from './git-trees.js';
import { GitHubState, registerGitHubRoutes, type FakeGitHubPull } from './github-routes.js';
import { GitHubReviewState, registerReviewRoutes, type CommentableLines } from './review-routes.js';
import type { FakeSourceIssue, FakeSourcePull } from './source-pulls.js';
import { WorkflowGuard } from './workflow-guard.js';

/** Settings of the fake GitHub. */
export interface FakeGitHubOptions {
  /** Directory of bare repositories, `<owner>/<name>.git`, served over git smart-HTTP. */
  readonly root?: string;
  /** The clock tokens and app JWTs expire by (default `Date.now`). */
  readonly now?: () => number;
  /** Lifetime of a minted token (default one hour). */
  readonly tokenTtlMs?: number;
  /** A GitHub App whose RS256 JWTs the fake accepts on `/app/...`. */
  readonly app?: { readonly id: string; readonly publicKey: KeyObject | string };
  /**
   * What the App's installation grants: the permissions of a token minted without asking for
   * some (default {@link DEFAULT_INSTALLATION_PERMISSIONS}; see {@link FakeGitHub.grant}).
   */
  readonly permissions?: Readonly<Record<string, string>>;
}

/** Caravel's App as registered by default: no `workflows` (see `app-manifest.ts`). */
export const DEFAULT_INSTALLATION_PERMISSIONS: Readonly<Record<string, string>> = {
  contents: 'write',
  pull_requests: 'write',
  issues: 'write',
};

/** A minted installation-style token. */
export interface FakeMintedToken {
  readonly token: string;
  readonly expiresAt: Date;
}

interface Issued {
  readonly repositories: string[] | 'all';
  readonly expiresAt: number;
  readonly login: string;
  /** An installation token's permissions, fixed when minted; null for a person's token. */
  readonly permissions: Readonly<Record<string, string>> | null;
}

const BAD_CREDENTIALS: FakeResponse = {
  status: 401,
  body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' },
};

/**
 * A GitHub stand-in on 127.0.0.1 speaking the REST API Caravel uses (repositories, issue and
 * review comments, reactions, pull requests, review requests, reviews, check runs, App
 * installation tokens; GraphQL review threads, see `review-routes.ts`) and git
 * smart-HTTP through `git http-backend`. Tokens are either user tokens ({@link addUserToken},
 * every repository) or installation tokens it mints, each valid for its repositories until it
 * expires; git wants `Basic x-access-token:<token>`, the API `Bearer <token>`. A push with an
 * installation token without `workflows: write` whose commits touch `.github/workflows/` is
 * refused with GitHub's reason, the ref left as it was (`workflow-guard.ts`).
 */
export class FakeGitHub extends LoopbackApi {
  readonly state: GitHubState;
  /** Reviews, review comments and threads, check runs. */
  readonly reviews: GitHubReviewState;
  /** Commit statuses (check runs are in {@link reviews}). */
  readonly statuses = new CommitStatuses();
  /** Repositories' collaborators (`addCollaborator`; an owner always is one). */
  readonly collaborators = new Collaborators();
  /** The git trees API (`limit` makes a recursive listing come back truncated). */
  readonly trees: GitTrees;
  readonly minted: FakeMintedToken[] = [];
  /** Tokens of requests let through, in order. */
  readonly accepted: string[] = [];
  /** Authorization headers of requests refused. */
  readonly rejected: string[] = [];
  private readonly issued = new Map<string, Issued>();
  private readonly now: () => number;
  private readonly workflowGuard = new WorkflowGuard();
  private installationPermissions: Readonly<Record<string, string>>;

  constructor(private readonly options: FakeGitHubOptions = {}) {
    super();
    this.now = options.now ?? Date.now;
    this.installationPermissions = options.permissions ?? DEFAULT_INSTALLATION_PERMISSIONS;
    const root = options.root;
    this.state = new GitHubState(
      () => this.origin,
      (key) => root !== undefined && existsSync(join(root, `${key}.git`)),
    );
    this.authorize((call) => this.check(call));
    this.route('POST', '/app/installations/:id/access_tokens', (call, p) =>
      this.installationToken(call, Number(p['id'])),
    );
    this.route('GET', '/user', (call) => ({
      status: 200,
      body: { login: this.loginOf(call) },
    }));
    this.reviews = new GitHubReviewState(
      this.state,
      authorAssociation(this.state.orgMembers, this.collaborators),
    );
    registerReviewRoutes(this, this.state, this.reviews, (call) => this.loginOf(call));
    registerGitHubRoutes(this, this.state, (call) => this.loginOf(call));
    registerCommitCheckRoutes(this, this.state, this.reviews, this.statuses, (call) =>
      this.loginOf(call),
    );
    registerCollaboratorRoutes(this, this.collaborators);
    registerCollaboratorPermissionRoutes(this, this.collaborators);
    this.route('GET', '/repos/:owner/:repo/compare/:basehead', (_call, p) => {
      const fullName = `${p['owner']}/${p['repo']}`.toLowerCase();
      return root === undefined
        ? { status: 404, body: { message: 'Not Found' } }
        : compareCommits(root, fullName, String(p['basehead']));
    });
    this.trees = registerTreeRoutes(
      this,
      root,
      (key) => this.state.repositories.get(key)?.defaultBranch,
    );
    this.route('GET', '/repos/:owner/:repo/contents/:path', (call, p) => {
      const fullName = `${p['owner']}/${p['repo']}`.toLowerCase();
      const declared = this.state.repositories.get(fullName);
      if (root === undefined || !declared) return { status: 404, body: { message: 'Not Found' } };
      const ref = call.query['ref'] ?? declared.defaultBranch;
      return fileContents(root, fullName, String(p['path']), ref);
    });
  }

  /** Starts the server; returns its origin (the Octokit `baseUrl`). */
  start(): Promise<string> {
    return this.listen();
  }

  override async close(): Promise<void> {
    await super.close();
    this.workflowGuard.dispose();
  }

  /**
   * An admin changes what the App's installation grants (and accepts it): tokens minted from now
   * on carry `permissions`; tokens minted before keep theirs, as GitHub's.
   */
  grant(permissions: Readonly<Record<string, string>>): this {
    this.installationPermissions = { ...permissions };
    return this;
  }

  /** Declares a repository (default branch `main`) under an App installation. */
  addRepository(
    fullName: string,
    options: { defaultBranch?: string; installationId?: number } = {},
  ): this {
    this.state.repositories.set(fullName.toLowerCase(), {
      defaultBranch: options.defaultBranch ?? 'main',
      installationId: options.installationId ?? 1,
    });
    return this;
  }

  /**
   * Opens pull request `number` of `fullName` for reviews: who authored it (GitHub refuses a
   * verdict on one's own) and, when given, the lines of its diff a review comment may sit on
   * (a comment elsewhere gets GitHub's 422 and the review is not created).
   */
  setReviewablePull(
    fullName: string,
    number: number,
    pull: { author: string; commentable?: CommentableLines; title?: string; body?: string },
  ): this {
    const key = `${fullName}#${number}`.toLowerCase();
    this.reviews.authors.set(key, pull.author);
    if (pull.commentable) this.reviews.commentable.set(key, pull.commentable);
    else this.reviews.commentable.delete(key);
    // It is a pull request too (`GET …/pulls/<n>`): open, unless a test already listed it.
    const listed = this.state.pulls.get(fullName.toLowerCase()) ?? [];
    if (!listed.some((existing) => existing.number === number)) {
      const opened: FakeGitHubPull = {
        number,
        title: pull.title ?? `Pull request ${number}`,
        body: pull.body ?? '',
        draft: false,
        state: 'open',
        head: `pull-${number}`,
        base: 'main',
        requestedReviewers: [],
        author: pull.author,
      };
      this.state.pulls.set(fullName.toLowerCase(), [...listed, opened]);
    }
    return this;
  }

  /**
   * Makes `login` a member of organization `org` (`GET /orgs/{org}/members/{username}`,
   * `GET /orgs/{org}/memberships/{username}`), one of its owners with `role: 'admin'`.
   */
  addOrgMember(org: string, login: string, role: 'admin' | 'member' = 'member'): this {
    const add = (sets: Map<string, Set<string>>) => {
      const key = org.toLowerCase();
      sets.set(key, (sets.get(key) ?? new Set<string>()).add(login.toLowerCase()));
    };
    add(this.state.orgMembers);
    if (role === 'admin') add(this.state.orgAdmins);
    else this.state.orgAdmins.get(org.toLowerCase())?.delete(login.toLowerCase());
    return this;
  }

  /** Takes `login` out of organization `org` (they left, or were removed). */
  removeOrgMember(org: string, login: string): this {
    for (const sets of [this.state.orgMembers, this.state.orgAdmins]) {
      sets.get(org.toLowerCase())?.delete(login.toLowerCase());
    }
    return this;
  }

  /** Accepts `token` as a user's OAuth token with access to every repository. */
  addUserToken(token: string, login: string): this {
    this.issued.set(token, {
      repositories: 'all',
      expiresAt: Number.POSITIVE_INFINITY,
      login,
      permissions: null,
    });
    return this;
  }

  /**
   * Opens pull request `pull` of `fullName` from a fork's branch, as GitHub does: the fork (a
   * repository on disk at `fork.path`, which the App cannot push to) keeps the branch, and the
   * base repository served under {@link FakeGitHubOptions.root} gets its head at
   * `refs/pull/<N>/head`. The pull request names the fork (`pull.headRepository`, null for one
   * since deleted) and its head commit, which this returns.
   */
  openForkPull(
    fullName: string,
    pull: Omit<FakeGitHubPull, 'headSha'>,
    fork: { path: string },
  ): string {
    if (!this.options.root)
      throw new Error('a fork pull request needs the fake to serve git (root)');
    const headSha = exposePullHead(this.options.root, fullName, pull.number, {
      path: fork.path,
      branch: pull.head,
    });
    const key = fullName.toLowerCase();
    this.state.pulls.set(key, [...(this.state.pulls.get(key) ?? []), { ...pull, headSha }]);
    return headSha;
  }

  /** Adds a merged (or closed) PR to a source repository's PR listing (farm tests). */
  addSourcePull(fullName: string, pull: FakeSourcePull): this {
    const key = fullName.toLowerCase();
    const list = this.state.source.pulls.get(key) ?? [];
    this.state.source.pulls.set(key, [...list, pull]);
    return this;
  }

  /** Adds an issue a source PR may link. */
  addSourceIssue(fullName: string, issue: FakeSourceIssue): this {
    const key = fullName.toLowerCase();
    this.state.source.issues.set(key, [...(this.state.source.issues.get(key) ?? []), issue]);
    return this;
  }

  /** Makes `GET /repos/{o}/{r}` report `permissions` (absent unless set, as for App tokens). */
  setPermissions(fullName: string, permissions: Record<string, boolean>): this {
    this.state.source.permissions.set(fullName.toLowerCase(), permissions);
    return this;
  }

  /** Mints a token for one repository (the `TokenMinter` a test may hand a token source). */
  readonly mint = (scope: { repository: string }): Promise<FakeMintedToken> =>
    Promise.resolve(this.issue([scope.repository.toLowerCase()]));

  protected override handleRaw(req: IncomingMessage, res: ServerResponse): boolean {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const git = /^\/([^/]+)\/([^/]+?)\.git\//.exec(path);
    if (!git) return false;
    const token = basicToken(String(req.headers.authorization ?? ''));
    if (!this.options.root || !token || !this.valid(token, `${git[1]}/${git[2]}`)) {
      this.rejected.push(req.headers.authorization ?? '(none)');
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="fake"' }).end('bad credentials\n');
      return true;
    }
    this.accepted.push(token);
    const root = this.options.root;
    const pushing = path.endsWith('/git-receive-pack');
    if (pushing) res.once('finish', () => this.followPush(root, `${git[1]}/${git[2]}`));
    const guarded = pushing && !this.mayWriteWorkflows(token);
    serveGitHttpBackend(req, res, root, 'x-access-token', guarded ? this.workflowGuard.env() : {});
    return true;
  }

  /** A person's token may (their own rights are not modelled); an App's needs `workflows: write`. */
  private mayWriteWorkflows(token: string): boolean {
    const permissions = this.issued.get(token)?.permissions;
    return permissions === null || permissions?.['workflows'] === 'write';
  }

  /**
   * After a push, each open pull request of the repository whose branch is its own (not a fork's)
   * takes the branch's new commit as its head, as GitHub's do.
   */
  private followPush(root: string, fullName: string): void {
    for (const pull of this.state.pulls.get(fullName.toLowerCase()) ?? []) {
      if (pull.state !== 'open' || pull.headRepository !== undefined) continue;
      const head = branchHead(root, fullName, pull.head);
      if (head) pull.headSha = head;
    }
  }

  private issue(
    repositories: string[] | 'all',
    permissions: Readonly<Record<string, string>> = this.installationPermissions,
  ): FakeMintedToken {
    const token = `ghs_fake${randomBytes(16).toString('hex')}`;
    const expiresAt = this.now() + (this.options.tokenTtlMs ?? 3_600_000);
    this.issued.set(token, { repositories, expiresAt, login: 'caravel[bot]', permissions });
    const minted = { token, expiresAt: new Date(expiresAt) };
    this.minted.push(minted);
    return minted;
  }

  private check(call: RecordedCall): FakeResponse | null {
    if (call.path.startsWith('/app/') || call.path.endsWith('/installation')) {
      return this.checkAppJwt(call);
    }
    const token = bearerToken(call);
    const repo = /^\/repos\/([^/]+)\/([^/]+)/.exec(call.path);
    const repository = repo ? `${repo[1]}/${repo[2]}` : undefined;
    if (!token || !this.issued.has(token) || !this.valid(token, repository)) {
      this.rejected.push(String(call.headers.authorization ?? '(none)'));
      return token && this.issued.has(token) && this.unexpired(token)
        ? { status: 403, body: { message: 'Resource not accessible by integration' } }
        : BAD_CREDENTIALS;
    }
    this.accepted.push(token);
    return null;
  }

  /** Routes under `/app` and `GET /repos/o/r/installation` take the App's JWT, not a token. */
  private checkAppJwt(call: RecordedCall): FakeResponse | null {
    const app = this.options.app;
    const jwt = bearerToken(call);
    if (app && jwt && verifyAppJwt(jwt, app, this.now())) return null;
    this.rejected.push(String(call.headers.authorization ?? '(none)'));
    return { status: 401, body: { message: 'A JSON web token could not be decoded' } };
  }

  private installationToken(call: RecordedCall, installationId: number): FakeResponse {
    const installed = [...this.state.repositories].filter(
      ([, repo]) => repo.installationId === installationId,
    );
    if (installed.length === 0) return { status: 404, body: { message: 'Not Found' } };
    const asked = call.body?.['repositories'];
    const names = installed.map(([fullName]) => fullName);
    const repositories = Array.isArray(asked)
      ? names.filter((fullName) =>
          // GitHub compares repository names case-insensitively (`fullName` is lower case).
          asked.map((name) => String(name).toLowerCase()).includes(fullName.split('/')[1] ?? ''),
        )
      : names;
    const permissions =
      askedPermissions(call.body?.['permissions']) ?? this.installationPermissions;
    const minted = this.issue(repositories, permissions);
    return {
      status: 201,
      body: {
        token: minted.token,
        expires_at: minted.expiresAt.toISOString(),
        permissions,
        repository_selection: Array.isArray(asked) ? 'selected' : 'all',
      },
    };
  }

  private loginOf(call: RecordedCall): string {
    const token = bearerToken(call);
    return (token && this.issued.get(token)?.login) ?? 'unknown';
  }

  private unexpired(token: string): boolean {
    return (this.issued.get(token)?.expiresAt ?? 0) > this.now();
  }

  private valid(token: string, repository: string | undefined): boolean {
    const issued = this.issued.get(token);
    if (!issued || !this.unexpired(token)) return false;
    if (issued.repositories === 'all' || repository === undefined) return true;
    return issued.repositories.includes(repository.toLowerCase());
  }
}

/** The permissions an access-token request names (`{ name: level }`), or undefined. */
function askedPermissions(asked: unknown): Record<string, string> | undefined {
  if (typeof asked !== 'object' || asked === null || Array.isArray(asked)) return undefined;
  return Object.fromEntries(Object.entries(asked).map(([name, level]) => [name, String(level)]));
}

function basicToken(header: string): string | undefined {
  const basic = /^Basic (\S+)$/.exec(header)?.[1];
  const decoded = basic ? Buffer.from(basic, 'base64').toString('utf8') : '';
  return decoded.startsWith('x-access-token:')
    ? decoded.slice('x-access-token:'.length)
    : undefined;
}

/** Checks an App JWT as GitHub does: RS256 signature, issuer, and an unexpired window. */
function verifyAppJwt(
  jwt: string,
  app: { id: string; publicKey: KeyObject | string },
  nowMs: number,
): boolean {
  const [header, payload, signature] = jwt.split('.');
  if (!header || !payload || !signature) return false;
  const decode = (part: string): Record<string, unknown> =>
    JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  try {
    if (decode(header)['alg'] !== 'RS256') return false;
    const ok = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      app.publicKey,
      Buffer.from(signature, 'base64url'),
    );
    const claims = decode(payload);
    const now = Math.floor(nowMs / 1000);
    return (
      ok &&
      String(claims['iss']) === app.id &&
      Number(claims['exp']) > now &&
      Number(claims['iat']) <= now + 60 &&
      Number(claims['exp']) - Number(claims['iat']) <= 660
    );
  } catch {
    return false;
  }
}
