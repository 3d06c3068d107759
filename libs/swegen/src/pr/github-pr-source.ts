import { AppError } from '@caravel/errors';
import { z } from 'zod';
import { swegenError } from '../errors/swegen-errors.js';
import type { IssueRef } from '../rules/linked-issues.js';
import { crossReferencedIssues, toPullRequestInfo } from './github-mapping.js';
import {
  githubFileSchema,
  githubIssueSchema,
  githubPullSchema,
  githubTimelineEventSchema,
} from './pull-request.schema.js';
import type { IssueInfo, PrFile, PrSource, PullRequestInfo } from './pr-source.js';

/** Settings of the GitHub source. */
export interface GithubPrSourceOptions {
  /** Read-only token for the source repositories (optional for public ones). */
  readonly token?: string;
  /** The REST API root (default https://api.github.com; a GitHub Enterprise or a fake in tests). */
  readonly apiUrl?: string;
  readonly fetch?: typeof fetch;
  /** Injected clock for rate-limit reset times. */
  readonly now?: () => number;
}

const changedFilesSchema = z.object({ changed_files: z.number().int().nonnegative() });

/** The `next` URL of a `Link` header, if any. */
export function nextLink(header: string | null): string | undefined {
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/** A 403/429 is a rate limit when it says so: `Retry-After`, or no requests remaining. */
function rateLimitSeconds(response: Response, now: number): number | undefined {
  if (response.status !== 403 && response.status !== 429) return undefined;
  const retryAfter = response.headers.get('retry-after');
  if (retryAfter !== null && Number.isFinite(Number(retryAfter))) return Number(retryAfter);
  if (response.headers.get('x-ratelimit-remaining') === '0') {
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    return Number.isFinite(reset) ? Math.max(0, Math.ceil(reset - now / 1000)) : 60;
  }
  return response.status === 429 ? 60 : undefined;
}

/**
 * Pull requests from GitHub's REST API: the PR object, its file list followed through every
 * `Link: rel="next"` page, issues, and timeline cross-references. A rate limit (403/429 with
 * `Retry-After` or `X-RateLimit-Remaining: 0`) is RATE_LIMITED with `details.retryAfterSeconds`;
 * 401 and other 403s are UNAUTHENTICATED/FORBIDDEN; a missing PR is NOT_FOUND.
 */
export class GithubPrSource implements PrSource {
  private readonly apiUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly options: GithubPrSourceOptions = {}) {
    this.apiUrl = (options.apiUrl ?? 'https://api.github.com').replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
  }

  private async request(url: string): Promise<Response> {
    const headers: Record<string, string> = {
      Accept: 'application/vnd.github+json',
      'X-GitHub-Api-Version': '2022-11-28',
      'User-Agent': 'caravel-swegen',
      ...(this.options.token ? { Authorization: `Bearer ${this.options.token}` } : {}),
    };
    const response = await this.fetchImpl(url, { headers }).catch((error: unknown) => {
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `GitHub is unreachable (${url}): ${(error as Error).message}`,
      );
    });
    if (response.ok || response.status === 404) return response;
    const wait = rateLimitSeconds(response, this.now());
    if (wait !== undefined) {
      throw swegenError(
        'rate_limited',
        `GitHub rate limit reached; retry in ${wait} s or use another token`,
        { retryAfterSeconds: wait },
      );
    }
    const body = (await response.text()).slice(0, 200);
    if (response.status === 401)
      throw new AppError('UNAUTHENTICATED', `GitHub rejected the token (401): ${body}`);
    if (response.status === 403)
      throw new AppError('FORBIDDEN', `GitHub refused ${url} (403): ${body}`);
    throw new AppError(
      'DEPENDENCY_UNAVAILABLE',
      `GitHub answered ${response.status} for ${url}: ${body}`,
    );
  }

  private async json<S extends z.ZodType>(
    path: string,
    schema: S,
  ): Promise<z.output<S> | undefined> {
    const response = await this.request(`${this.apiUrl}${path}`);
    if (response.status === 404) return undefined;
    const parsed = schema.safeParse(await response.json());
    if (!parsed.success)
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `GitHub's answer to ${path} has an unexpected shape`,
      );
    return parsed.data;
  }

  private async pages<S extends z.ZodType>(path: string, item: S): Promise<z.output<S>[]> {
    const items: z.output<S>[] = [];
    let url: string | undefined =
      `${this.apiUrl}${path}${path.includes('?') ? '&' : '?'}per_page=100`;
    while (url) {
      const response = await this.request(url);
      if (response.status === 404) throw new AppError('NOT_FOUND', `GitHub has no ${path}`);
      const body = await response.json();
      if (!Array.isArray(body))
        throw new AppError('DEPENDENCY_UNAVAILABLE', `GitHub's answer to ${path} is not a list`);
      for (const entry of body) {
        const parsed = item.safeParse(entry);
        if (parsed.success) items.push(parsed.data);
      }
      url = nextLink(response.headers.get('link'));
    }
    return items;
  }

  /**
   * One page of the repository's closed PRs, newest created first (the farm's stream):
   * `state=closed&sort=created&direction=desc`.
   */
  async listClosedPulls(repo: string, page: number, perPage = 100): Promise<PullRequestInfo[]> {
    const query = `state=closed&sort=created&direction=desc&per_page=${perPage}&page=${page}`;
    const response = await this.request(`${this.apiUrl}/repos/${repo}/pulls?${query}`);
    if (response.status === 404) throw new AppError('NOT_FOUND', `GitHub has no ${repo}`);
    const body: unknown = await response.json();
    if (!Array.isArray(body))
      throw new AppError('DEPENDENCY_UNAVAILABLE', `GitHub's list of ${repo} PRs is not a list`);
    return body.flatMap((entry) => {
      const parsed = githubPullSchema.safeParse(entry);
      return parsed.success ? [toPullRequestInfo(parsed.data)] : [];
    });
  }

  /** `changed_files` of the PR (a total count, tests included). */
  async changedFileCount(repo: string, pr: number): Promise<number> {
    const pull = await this.json(`/repos/${repo}/pulls/${pr}`, changedFilesSchema);
    if (!pull) throw new AppError('NOT_FOUND', `${repo}#${pr} is not a pull request on GitHub`);
    return pull.changed_files;
  }

  /** True as soon as a page of the PR's files holds one that `isTest` accepts. */
  async touchesFile(repo: string, pr: number, isTest: (path: string) => boolean): Promise<boolean> {
    let url: string | undefined = `${this.apiUrl}/repos/${repo}/pulls/${pr}/files?per_page=100`;
    while (url) {
      const response = await this.request(url);
      if (response.status === 404) throw new AppError('NOT_FOUND', `GitHub has no ${repo}#${pr}`);
      const body: unknown = await response.json();
      const files = Array.isArray(body) ? body : [];
      const names = files.map((f) => (f as { filename?: unknown }).filename);
      if (names.some((name) => typeof name === 'string' && isTest(name))) return true;
      url = nextLink(response.headers.get('link'));
    }
    return false;
  }

  async getPullRequest(repo: string, pr: number): Promise<PullRequestInfo> {
    const pull = await this.json(`/repos/${repo}/pulls/${pr}`, githubPullSchema);
    if (!pull) throw new AppError('NOT_FOUND', `${repo}#${pr} is not a pull request on GitHub`);
    return toPullRequestInfo(pull);
  }

  async listFiles(repo: string, pr: number): Promise<PrFile[]> {
    const files = await this.pages(`/repos/${repo}/pulls/${pr}/files`, githubFileSchema);
    return files.map((f) => ({
      filename: f.filename,
      status: f.status,
      ...(f.previous_filename ? { previousFilename: f.previous_filename } : {}),
    }));
  }

  async getIssue(repo: string, issue: number): Promise<IssueInfo | undefined> {
    const found = await this.json(`/repos/${repo}/issues/${issue}`, githubIssueSchema).catch(
      (error: unknown) => {
        if (error instanceof AppError && error.code === 'RATE_LIMITED') throw error;
        return undefined;
      },
    );
    if (!found || found.pull_request !== undefined) return undefined;
    return { repo: repo.toLowerCase(), number: issue, title: found.title, body: found.body ?? '' };
  }

  async timelineIssueRefs(repo: string, pr: number): Promise<IssueRef[]> {
    return crossReferencedIssues(
      await this.pages(`/repos/${repo}/issues/${pr}/timeline`, githubTimelineEventSchema),
      repo,
    );
  }

  fetchUrl(pr: PullRequestInfo): string {
    return pr.cloneUrl;
  }
}
