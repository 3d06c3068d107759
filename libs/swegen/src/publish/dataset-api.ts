import { swegenError } from '../errors/swegen-errors.js';

/** Settings of the dataset repository's REST client. */
export interface DatasetApiOptions {
  /** The write token (`GIT_TOKEN`, else `GITHUB_TOKEN`). */
  readonly token: string;
  /** The REST API root (default https://api.github.com). */
  readonly apiUrl?: string;
  readonly fetch?: typeof fetch;
  /** How a retry waits (tests pass one that does not). */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** An open pull request of the dataset repository. */
export interface DatasetPull {
  readonly number: number;
  readonly htmlUrl: string;
}

const ATTEMPTS = 3;
const MAX_WAIT_S = 60;

function isRateLimit(response: Response): boolean {
  if (response.status === 429) return true;
  return (
    response.status === 403 &&
    (response.headers.has('retry-after') || response.headers.get('x-ratelimit-remaining') === '0')
  );
}

/**
 * The REST calls publishing makes on the dataset repository: the repository (preflight), open
 * PRs by head branch, PR creation. 401 and a 403 that is not a rate limit are PUBLISH_AUTH_ERROR
 * and never retried; 429, 5xx and rate-limited 403s are tried 3 times, honouring `Retry-After`
 * up to 60 s; anything else (422 ...) is PUBLISH_ERROR at once.
 */
export class DatasetApi {
  private readonly apiUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: DatasetApiOptions) {
    this.apiUrl = (options.apiUrl ?? 'https://api.github.com').replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? fetch;
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** `permissions.push` of the repository as the token sees it (undefined when not reported). */
  async pushPermission(repo: string): Promise<boolean | undefined> {
    const body = (await this.call('GET', `/repos/${repo}`)) as {
      permissions?: { push?: unknown };
    };
    const push = body.permissions?.push;
    return typeof push === 'boolean' ? push : undefined;
  }

  /** The open PR whose head is `branch`, if any. */
  async findOpenPull(repo: string, branch: string): Promise<DatasetPull | undefined> {
    const owner = repo.split('/')[0] ?? '';
    const query = new URLSearchParams({ head: `${owner}:${branch}`, state: 'open' });
    const body = await this.call('GET', `/repos/${repo}/pulls?${query.toString()}`);
    const first = Array.isArray(body)
      ? (body[0] as Record<string, unknown> | undefined)
      : undefined;
    return first
      ? { number: Number(first['number']), htmlUrl: String(first['html_url']) }
      : undefined;
  }

  /** Opens a pull request. */
  async createPull(
    repo: string,
    pull: { title: string; body: string; head: string; base: string },
  ): Promise<DatasetPull> {
    const body = (await this.call('POST', `/repos/${repo}/pulls`, pull)) as Record<string, unknown>;
    return { number: Number(body['number']), htmlUrl: String(body['html_url']) };
  }

  private async call(method: string, path: string, json?: unknown): Promise<unknown> {
    for (let attempt = 1; ; attempt += 1) {
      const response = await this.fetchImpl(`${this.apiUrl}${path}`, {
        method,
        headers: {
          Accept: 'application/vnd.github+json',
          'X-GitHub-Api-Version': '2022-11-28',
          'User-Agent': 'caravel-swegen',
          Authorization: `Bearer ${this.options.token}`,
          ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      }).catch((error: unknown) => {
        throw swegenError('publish_error', `GitHub is unreachable: ${(error as Error).message}`);
      });
      if (response.ok) return response.json();
      const text = (await response.text()).slice(0, 300);
      const retryable = isRateLimit(response) || response.status >= 500;
      if (retryable && attempt < ATTEMPTS) {
        const after = Number(response.headers.get('retry-after'));
        const wait =
          Number.isFinite(after) && after >= 0 ? Math.min(after, MAX_WAIT_S) : 2 ** attempt;
        await this.sleep(wait * 1000);
        continue;
      }
      if (response.status === 401 || (response.status === 403 && !isRateLimit(response))) {
        throw swegenError(
          'publish_auth_error',
          `the publish token was refused by ${method} ${path} (${response.status}): ${text}`,
        );
      }
      throw swegenError('publish_error', `${method} ${path} answered ${response.status}: ${text}`, {
        status: response.status,
      });
    }
  }
}
