import { LoopbackApi, type RecordedCall } from '../http/loopback-api.js';
import { randomBytes } from 'node:crypto';

/** A GitHub account the fake signs in, and its organisation memberships. */
export interface FakeGithubAccount {
  login: string;
  id: number;
  name?: string;
  orgs?: Record<string, { state: 'active' | 'pending'; role: 'admin' | 'member' }>;
}

interface IssuedCode {
  account: FakeGithubAccount;
  redirectUri: string;
}

/**
 * GitHub's OAuth web flow on loopback, in its wire format: `/login/oauth/authorize` sends the
 * browser back to `redirect_uri` with `code` and `state` (as if the person clicked Authorize),
 * `/login/oauth/access_token` trades a code once (200 with `error` for a bad one, as GitHub
 * does), and `/user` and `/user/memberships/orgs/:org` answer for the token's account.
 */
export class FakeGithubOAuth extends LoopbackApi {
  readonly clientId = 'Iv1.fakeclient0001';
  readonly clientSecret = 'fake-client-secret-0001';
  /** Who authorizes next. */
  account: FakeGithubAccount = { login: 'octocat', id: 583231, name: 'The Octocat' };
  private readonly codes = new Map<string, IssuedCode>();
  private readonly tokens = new Map<string, FakeGithubAccount>();

  constructor() {
    super();
    this.route('GET', '/login/oauth/authorize', (call) => this.redirectBack(call));
    this.route('POST', '/login/oauth/access_token', (call) => this.exchange(call));
    this.route('GET', '/user', (call) => {
      const account = this.holder(call);
      if (!account) return { status: 401, body: { message: 'Bad credentials' } };
      return {
        status: 200,
        body: {
          login: account.login,
          id: account.id,
          name: account.name ?? null,
          avatar_url: null,
          type: 'User',
        },
      };
    });
    this.route('GET', '/user/memberships/orgs/:org', (call, { org = '' }) => {
      const account = this.holder(call);
      if (!account) return { status: 401, body: { message: 'Bad credentials' } };
      const membership = account.orgs?.[org];
      if (!membership) return { status: 404, body: { message: 'Not Found' } };
      return {
        status: 200,
        body: { ...membership, organization: { login: org }, user: { login: account.login } },
      };
    });
  }

  private redirectBack(call: RecordedCall) {
    const { client_id: clientId, redirect_uri: redirectUri, state } = call.query;
    if (clientId !== this.clientId || !redirectUri) {
      return { status: 404, body: 'fake: unknown client or no redirect_uri' };
    }
    const code = randomBytes(10).toString('hex');
    this.codes.set(code, { account: this.account, redirectUri });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    if (state !== undefined) back.searchParams.set('state', state);
    return { status: 302, headers: { location: back.toString() } };
  }

  private exchange(call: RecordedCall) {
    const body = call.body ?? {};
    if (body['client_id'] !== this.clientId || body['client_secret'] !== this.clientSecret) {
      return { status: 200, body: { error: 'incorrect_client_credentials' } };
    }
    const issued = this.codes.get(String(body['code']));
    this.codes.delete(String(body['code']));
    if (!issued || (body['redirect_uri'] && body['redirect_uri'] !== issued.redirectUri)) {
      return {
        status: 200,
        body: {
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
        },
      };
    }
    const token = `ghu_${randomBytes(16).toString('hex')}`;
    this.tokens.set(token, issued.account);
    return { status: 200, body: { access_token: token, token_type: 'bearer', scope: '' } };
  }

  private holder(call: RecordedCall): FakeGithubAccount | undefined {
    const header = String(call.headers['authorization'] ?? '');
    return this.tokens.get(header.replace(/^(Bearer|token)\s+/i, ''));
  }
}
