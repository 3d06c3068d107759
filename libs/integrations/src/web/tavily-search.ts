import { AppError } from '@caravel/errors';
import type { WebSearchProvider, WebSearchResult } from '@caravel/tools';
import { z } from 'zod';
import { retryPolicy, withRateLimitRetry, type RetryPolicy } from '../http/rate-limit-retry.js';
import { notConfigured, retryAfterSeconds, serviceError } from '../http/service-errors.js';

/** Tavily's own endpoint. */
export const TAVILY_API_URL = 'https://api.tavily.com';

/** Settings of {@link TavilySearch}. */
export interface TavilySearchOptions {
  /** A Tavily API key (`tvly-...`); absent means web search is not configured. */
  apiKey: string | undefined;
  /** The API root (default {@link TAVILY_API_URL}). */
  apiUrl?: string;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

/** The part of Tavily's `POST /search` answer Caravel reads. */
const searchAnswer = z.object({
  results: z.array(
    z.object({
      title: z.string().default(''),
      url: z.string(),
      content: z.string().default(''),
    }),
  ),
});

/** Tavily's error body: `{"detail": {"error": "..."}}`. */
const errorAnswer = z.object({ detail: z.object({ error: z.string() }) });

/**
 * `web_search` through Tavily's Search API (`POST /search`, bearer key, `max_results` at most 20,
 * a basic-depth search without generated answers or raw page content). Results are Tavily's
 * title, URL and content snippet. No key: `PRECONDITION_FAILED` naming `TAVILY_API_KEY`.
 */
export class TavilySearch implements WebSearchProvider {
  private readonly policy: RetryPolicy;

  constructor(private readonly options: TavilySearchOptions) {
    this.policy = retryPolicy(options.retry);
  }

  async search(query: string, limit: number): Promise<WebSearchResult[]> {
    const apiKey = this.options.apiKey;
    if (!apiKey) throw notConfigured('Web search (Tavily)', 'TAVILY_API_KEY');
    const action = `search for "${query.slice(0, 80)}"`;
    const answer = await withRateLimitRetry(this.policy, () =>
      this.post(apiKey, query, limit, action),
    );
    const parsed = searchAnswer.safeParse(answer);
    if (!parsed.success) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', `Tavily answered ${action} without results`, {
        retryable: false,
      });
    }
    return parsed.data.results
      .slice(0, limit)
      .map((result) => ({ title: result.title, url: result.url, snippet: result.content }));
  }

  private async post(
    apiKey: string,
    query: string,
    limit: number,
    action: string,
  ): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(new URL('/search', this.options.apiUrl ?? TAVILY_API_URL), {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query,
          max_results: Math.min(Math.max(limit, 1), 20),
          search_depth: 'basic',
          include_answer: false,
          include_raw_content: false,
          include_images: false,
        }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw serviceError({ service: 'Tavily', action, status: 0, message });
    }
    const text = await response.text();
    const json = parseJson(text);
    if (response.ok) return json;
    const said = errorAnswer.safeParse(json);
    const wait = retryAfterSeconds(response.headers.get('retry-after'));
    const overQuota = response.status === 432 || response.status === 433;
    throw serviceError({
      service: 'Tavily',
      action,
      // 432/433: the plan's or the pay-as-you-go credit limit; waiting does not help.
      status: overQuota ? 403 : response.status,
      ...(said.success ? { message: said.data.detail.error } : {}),
      ...(overQuota ? { reason: 'usage_limit' } : {}),
      ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
    });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
