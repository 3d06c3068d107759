import { AppError } from '@caravel/errors';
import { z } from 'zod';

/** The GitHub App's OAuth credentials and where GitHub answers. */
export interface GithubOAuthOptions {
  clientId: string;
  clientSecret: string;
  /** Web origin serving `/login/oauth/*` (https://github.com). */
  webUrl: string;
  /** REST API base (https://api.github.com). */
  apiUrl: string;
  fetch?: typeof fetch;
}

const tokenAnswer = z.union([
  z.object({ access_token: z.string().min(1), token_type: z.string().optional() }),
  z.object({ error: z.string(), error_description: z.string().optional() }),
]);

const githubUser = z.object({
  login: z.string().min(1),
  id: z.number().int(),
  name: z.string().nullable().optional(),
  avatar_url: z.string().nullable().optional(),
});

const orgMembership = z.object({
  state: z.enum(['active', 'pending']),
  role: z.enum(['admin', 'member', 'billing_manager']).or(z.string()),
});

export type GithubUser = z.output<typeof githubUser>;
export type OrgMembership = z.output<typeof orgMembership>;

/**
 * The three GitHub calls of "Sign in with GitHub" (the web application flow): where to send the
 * browser, the code-for-token exchange, and who the token belongs to (with their membership of
 * an organisation for the org gate). The user token serves the sign-in only and is not kept.
 */
export class GithubOAuthClient {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: GithubOAuthOptions) {
    this.fetch = options.fetch ?? fetch;
  }

  authorizeUrl(state: string, redirectUri: string): string {
    const url = new URL('/login/oauth/authorize', this.options.webUrl);
    url.searchParams.set('client_id', this.options.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('state', state);
    url.searchParams.set('allow_signup', 'false');
    return url.toString();
  }

  async exchange(code: string, redirectUri: string): Promise<string> {
    const answer = await this.call(new URL('/login/oauth/access_token', this.options.webUrl), {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
        code,
        redirect_uri: redirectUri,
      }),
    });
    const parsed = tokenAnswer.safeParse(await answer.json());
    if (!parsed.success) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'GitHub answered the code exchange oddly');
    }
    if ('error' in parsed.data) {
      throw new AppError(
        'UNAUTHENTICATED',
        `GitHub refused the sign-in: ${parsed.data.error_description ?? parsed.data.error}`,
      );
    }
    return parsed.data.access_token;
  }

  async user(token: string): Promise<GithubUser> {
    const answer = await this.call(this.api('/user'), { headers: this.apiHeaders(token) });
    const parsed = githubUser.safeParse(await answer.json());
    if (!parsed.success)
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'GitHub /user was unreadable');
    return parsed.data;
  }

  /** The person's membership of `org`, or null when they are not (or not visibly) a member. */
  async membership(token: string, org: string): Promise<OrgMembership | null> {
    const path = `/user/memberships/orgs/${encodeURIComponent(org)}`;
    const answer = await this.call(this.api(path), { headers: this.apiHeaders(token) }, [403, 404]);
    if (answer.status === 403 || answer.status === 404) return null;
    const parsed = orgMembership.safeParse(await answer.json());
    return parsed.success ? parsed.data : null;
  }

  private api(path: string): URL {
    return new URL(`${this.options.apiUrl.replace(/\/$/, '')}${path}`);
  }

  private apiHeaders(token: string): Record<string, string> {
    return {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${token}`,
      'x-github-api-version': '2022-11-28',
    };
  }

  private async call(url: URL, init: RequestInit, expected: number[] = []): Promise<Response> {
    let response: Response;
    try {
      response = await this.fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', `GitHub is unreachable (${url.host})`, {
        cause: error,
      });
    }
    if (response.ok || expected.includes(response.status)) return response;
    if (response.status === 401) {
      throw new AppError('UNAUTHENTICATED', 'GitHub did not accept the sign-in token');
    }
    throw new AppError(
      'DEPENDENCY_UNAVAILABLE',
      `GitHub answered ${response.status} on ${url.pathname}`,
    );
  }
}
