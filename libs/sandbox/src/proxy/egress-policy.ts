import { normalizeRepository } from './token-source.js';

/** The GitHub a sandbox talks to, as the sandbox names it and as the proxy reaches it. */
export interface GitHubEndpoints {
  /** Host git remotes use inside the sandbox, e.g. `github.com`. */
  readonly gitHost: string;
  /** Host API calls use inside the sandbox, e.g. `api.github.com`. */
  readonly apiHost: string;
  /** Where git traffic really goes (default `https://<gitHost>`). */
  readonly gitUpstream?: string;
  /** Where API traffic really goes (default `https://<apiHost>`). */
  readonly apiUpstream?: string;
}

/** What the egress policy needs to decide about one request. */
export interface EgressPolicyOptions {
  readonly github: GitHubEndpoints;
  /**
   * The thread's repository, `owner/name`; the only one credentials are injected for. Null: the
   * thread has no repository on this GitHub, so every GitHub request is refused.
   */
  readonly repository: string | null;
  /** Hosts passed through without credentials: exact names or `*.suffix` wildcards. */
  readonly allowlist: readonly string[];
  /**
   * Whether git may push (`git-receive-pack`) with the credential: only the broker's own push
   * from a sandbox's mirror. A sandbox's proxy never: its commits leave through the broker.
   */
  readonly allowPush?: boolean;
  /**
   * Whether GitHub may be read anonymously beyond the thread's repository: git fetches and clones
   * (smart-HTTP upload-pack) and archive downloads of any repository, forwarded with no
   * credential at all (the sandbox's own Authorization dropped too), pushes still refused. For a
   * task's build steps, which hold no credential; an agent sandbox's proxy never.
   */
  readonly publicGitHubReads?: boolean;
}

/** The proxy's verdict on one request. */
export type EgressDecision =
  | { readonly kind: 'github-git'; readonly repository: string }
  | { readonly kind: 'github-api'; readonly repository: string }
  | { readonly kind: 'github-public' }
  | { readonly kind: 'pass-through' }
  | { readonly kind: 'deny'; readonly message: string };

const GIT_PATH = /^\/([^/]+)\/([^/]+?)(?:\.git)?\/(?:info\/refs|git-upload-pack|git-receive-pack)$/;
const ARCHIVE_PATH = /^\/[^/]+\/[^/]+\/(?:archive|tarball|zipball)\/./;
const API_REPO_PATH = /^\/repos\/([^/]+)\/([^/?]+)(?:\/|$)/;

/** Lower-cased host without port or trailing dot. */
export function hostName(host: string): string {
  const bare = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return (bare ?? '').replace(/\.$/, '').toLowerCase();
}

function portOf(host: string): string | undefined {
  const rest = host.startsWith('[') ? host.slice(host.indexOf(']') + 1) : host;
  return /:(\d+)$/.exec(rest)?.[1];
}

/**
 * Whether a request's `host[:port]` is the configured GitHub host: the same name, and the same
 * port when the configured one names a port (a GitHub Enterprise or test server on its own port).
 */
function isGitHubHost(requested: string, configured: string): boolean {
  if (hostName(requested) !== hostName(configured)) return false;
  const port = portOf(configured);
  return port === undefined || (portOf(requested) ?? '80') === port;
}

/** Whether `host` matches an allowlist entry (`registry.npmjs.org` or `*.pythonhosted.org`). */
export function hostAllowed(host: string, allowlist: readonly string[]): boolean {
  const name = hostName(host);
  return allowlist.some((entry) => {
    const pattern = entry.toLowerCase();
    return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern;
  });
}

/** The text a refused request answers with; the agent sees it as the observation. */
export function deniedHostMessage(host: string): string {
  return (
    `caravel egress proxy: requests to ${hostName(host)} are blocked. ` +
    `This sandbox may only reach GitHub (through this proxy) and the hosts on its egress allowlist. ` +
    `If the task needs ${hostName(host)}, ask an operator to add it to the sandbox egress allowlist.\n`
  );
}

function repositoryMessage(requested: string, allowed: string | null): string {
  if (allowed === null) {
    return (
      `caravel egress proxy: this sandbox's thread has no GitHub repository, ` +
      `so the request for ${requested} was refused.\n`
    );
  }
  return (
    `caravel egress proxy: this sandbox may only use GitHub repository ${allowed}; ` +
    `the request for ${requested} was refused.\n`
  );
}

function scoped(
  kind: 'github-git' | 'github-api',
  owner: string,
  name: string,
  repository: string | null,
): Extract<EgressDecision, { kind: 'github-git' | 'github-api' | 'deny' }> {
  const requested = `${decodeURIComponent(owner)}/${decodeURIComponent(name)}`;
  if (repository === null || normalizeRepository(requested) !== normalizeRepository(repository)) {
    return { kind: 'deny', message: repositoryMessage(requested, repository) };
  }
  return { kind, repository };
}

/** Methods of the API that only read. */
const READ_METHODS = new Set(['GET', 'HEAD']);

/** A git push: its ref advertisement (`info/refs?service=git-receive-pack`) or the pack itself. */
function isPush(path: string): boolean {
  const [pathname = '', query = ''] = path.split('?');
  return (
    pathname.endsWith('/git-receive-pack') ||
    new URLSearchParams(query).getAll('service').some((service) => service !== 'git-upload-pack')
  );
}

function writeRefused(repository: string, what: string): EgressDecision {
  return {
    kind: 'deny',
    message:
      `caravel egress proxy: this sandbox may read GitHub repository ${repository} but not ` +
      `write to it; ${what} was refused. Your commits reach GitHub through commit_and_open_pr ` +
      '(the platform pushes them and opens or updates the pull request); replies go through ' +
      'reply_to_user.\n',
  };
}

/**
 * Whether a path is what is forwarded: no `.`/`..` segment (plain or percent-encoded) that the
 * URL the proxy builds would resolve into another path than the one decided on.
 */
function isNormalPath(pathname: string): boolean {
  return new URL(pathname, 'http://caravel.invalid').pathname === pathname;
}

function oddPathRefused(pathname: string): EgressDecision {
  return {
    kind: 'deny',
    message: `caravel egress proxy: ${pathname} has dot segments; GitHub was not asked.\n`,
  };
}

/** A request for a repository other than the thread's, when GitHub may be read anonymously. */
function publicRead(path: string, pathname: string): EgressDecision {
  if (!isNormalPath(pathname)) return oddPathRefused(pathname);
  if (!isPush(path)) return { kind: 'github-public' };
  return {
    kind: 'deny',
    message:
      'caravel egress proxy: GitHub is read-only here (anonymous fetches of public repositories, ' +
      `no credential); git push (${pathname}) was refused.\n`,
  };
}

/**
 * A request to the git host: smart-HTTP on a repository, or (with `publicGitHubReads`) an archive
 * download. Undefined: neither, for the API's rules when the same host serves both.
 */
function decideGitHost(
  options: EgressPolicyOptions,
  path: string,
  method: string,
): EgressDecision | undefined {
  const pathname = path.split('?')[0] ?? '';
  const match = GIT_PATH.exec(pathname);
  if (match) {
    const decision = scoped('github-git', match[1] ?? '', match[2] ?? '', options.repository);
    if (decision.kind === 'deny' && options.publicGitHubReads) return publicRead(path, pathname);
    if (decision.kind === 'deny' || options.allowPush === true || !isPush(path)) return decision;
    return writeRefused(decision.repository, `git push (${pathname})`);
  }
  const read = READ_METHODS.has(method.toUpperCase());
  if (options.publicGitHubReads && read && ARCHIVE_PATH.test(pathname)) {
    return publicRead(path, pathname);
  }
  return undefined;
}

/** A request to the API host: `/repos/<owner>/<name>/...` of the thread's repository, to read. */
function decideApiHost(
  options: EgressPolicyOptions,
  name: string,
  pathname: string,
  method: string,
): EgressDecision {
  const match = API_REPO_PATH.exec(pathname);
  if (!match) {
    const served = options.repository
      ? `only /repos/${options.repository}/... is served for ${name}`
      : `this sandbox's thread has no GitHub repository`;
    return {
      kind: 'deny',
      message: `caravel egress proxy: ${served}; ${pathname} was refused.\n`,
    };
  }
  const decision = scoped('github-api', match[1] ?? '', match[2] ?? '', options.repository);
  if (decision.kind === 'deny' || READ_METHODS.has(method.toUpperCase())) return decision;
  return writeRefused(decision.repository, `${method.toUpperCase()} ${pathname}`);
}

/**
 * Decides one plain-HTTP request: git smart-HTTP and `/repos/<owner>/<name>` API calls for the
 * thread's repository get credentials, to read only (a fetch or clone, an API `GET`/`HEAD`; a push
 * only with `allowPush`): the credential is the App's, able to push to any branch, approve or
 * merge, so a sandbox that could write with it could do all that outside the platform's checks.
 * Any other GitHub path or repository is refused (with `publicGitHubReads`, a fetch or an archive
 * `GET` of it goes without credentials instead); allowlisted hosts pass through untouched;
 * everything else is refused.
 */
export function decideRequest(
  options: EgressPolicyOptions,
  host: string,
  path: string,
  method: string,
): EgressDecision {
  const name = hostName(host);
  const pathname = path.split('?')[0] ?? '';
  // One host may serve both (a GitHub Enterprise Server, a test server): git paths first.
  const api = isGitHubHost(host, options.github.apiHost);
  if (isGitHubHost(host, options.github.gitHost)) {
    const decision = decideGitHost(options, path, method);
    if (decision) return decision;
    if (!api) {
      return {
        kind: 'deny',
        message: `caravel egress proxy: only git smart-HTTP is served for ${name}; ${pathname} was refused.\n`,
      };
    }
  }
  if (api) return decideApiHost(options, name, pathname, method);
  if (hostAllowed(host, options.allowlist)) return { kind: 'pass-through' };
  return { kind: 'deny', message: deniedHostMessage(host) };
}

/** Decides a `CONNECT host:port` tunnel: only allowlisted hosts, never GitHub (no injection). */
export function decideTunnel(options: EgressPolicyOptions, authority: string): EgressDecision {
  const name = hostName(authority);
  const github = [options.github.gitHost, options.github.apiHost].map(hostName);
  if (github.includes(name)) {
    return {
      kind: 'deny',
      message:
        `caravel egress proxy: HTTPS tunnels to ${name} are refused because credentials can only be ` +
        `added to requests the proxy can see. Use http://${name}/... (git is already configured so).\n`,
    };
  }
  if (hostAllowed(authority, options.allowlist)) return { kind: 'pass-through' };
  return { kind: 'deny', message: deniedHostMessage(authority) };
}
