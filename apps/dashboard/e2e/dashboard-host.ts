import { DashboardModule, dashboardConfigOf, dashboardEnvSchema } from '@caravel/dashboard';
import {
  RunEventRepository,
  ThreadPlanRepository,
  ThreadRepository,
  type Database,
} from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import { openEmbeddedRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import {
  FakeGitHub,
  githubAppEnv,
  githubAppKeys,
  type FakeGithubAccount,
  type FakeGithubOAuth,
} from '@caravel/testing';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The dashboard alone (no other service), in this process, on PGlite and the embedded bus. */
export interface DashboardHost {
  readonly host: ServiceHost;
  readonly bus: Bus;
  readonly database: Database;
  /** The GitHub App that answers who may see a repository. */
  readonly github: FakeGitHub;
  /** A thread of `owner/name` whose first requester is `owner`; its id. */
  thread(id: string, title: string, owner: string): Promise<string>;
  /** Indexes an event of the thread (a step unless said), as the dashboard indexes one from the bus. */
  event(threadId: string, data: Record<string, unknown>, type?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts only the dashboard, serving `webRoot`, with sign-in through `oauth`: hubot an admin,
 * octocat (a collaborator on acme/web) and mallory (not one) members; `env` adds or replaces keys.
 */
export async function startDashboard(
  webRoot: string | undefined,
  oauth: FakeGithubOAuth,
  env: Record<string, string> = {},
): Promise<DashboardHost> {
  const scratch = await mkdtemp(join(tmpdir(), 'caravel-dashboard-host-'));
  const { privateKey, publicKey } = githubAppKeys();
  const github = new FakeGitHub({ app: { id: '4712', publicKey } });
  github.addRepository('acme/web');
  github.collaborators.add('acme/web', 'octocat');
  const origin = await github.start();
  const config = dashboardConfigOf(
    dashboardEnvSchema.parse({
      ...githubAppEnv('4712', privateKey, origin),
      ...signInEnv(oauth),
      ...env,
    }),
  );
  const runtime = await openEmbeddedRuntime({
    name: 'dashboard-host',
    dataDir: join(scratch, 'data'),
    databaseUrl: 'pglite:memory',
  });
  const host = await startServiceHost({
    runtime,
    modules: [DashboardModule.register(config, webRoot ? { webRoot } : {})],
    port: 0,
    logLevels: ['error', 'fatal'],
  });
  const database = runtime.database;
  let sequence = 0;
  return {
    host,
    bus: runtime.bus,
    database,
    github,
    async thread(id, title, owner) {
      await new ThreadRepository(database.db).upsert({
        id,
        source: 'github',
        title,
        repositoryOwner: 'acme',
        repositoryName: 'web',
      });
      await new ThreadPlanRepository(database.db).claimOwner(id, owner);
      return id;
    },
    async event(threadId, data, type = 'evt.run.step') {
      sequence += 1;
      await new RunEventRepository(database.db).append({
        id: randomUUID(),
        threadId,
        type,
        stream: 'RUN_EVENTS',
        sequence,
        occurredAt: new Date(),
        data,
      });
    },
    async close() {
      await host.close();
      await github.close();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** Sign-in through the fake GitHub `oauth`: hubot an admin, octocat and mallory members. */
export function signInEnv(oauth: FakeGithubOAuth): Record<string, string> {
  return {
    GITHUB_OAUTH_CLIENT_ID: oauth.clientId,
    GITHUB_OAUTH_CLIENT_SECRET: oauth.clientSecret,
    GITHUB_OAUTH_URL: oauth.origin,
    GITHUB_OAUTH_API_URL: oauth.origin,
    DASHBOARD_ADMINS: 'hubot',
    DASHBOARD_MEMBERS: 'octocat,mallory',
  };
}

/** Runs `signIn` with `account` as the one who authorizes on the fake GitHub. */
export async function asAccount<T>(
  oauth: FakeGithubOAuth,
  account: FakeGithubAccount,
  signIn: () => Promise<T>,
): Promise<T> {
  const before = oauth.account;
  oauth.account = account;
  try {
    return await signIn();
  } finally {
    oauth.account = before;
  }
}

/** `name=value` of each cookie a response sets. */
function setCookies(response: Response): string[] {
  return response.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
}

/**
 * Signs `account` in over plain HTTP, as a browser follows the redirects: the session's
 * `Set-Cookie` as the dashboard wrote it.
 */
export async function signInOverHttp(
  dashboard: string,
  oauth: FakeGithubOAuth,
  account: FakeGithubAccount,
): Promise<string> {
  return asAccount(oauth, account, async () => {
    const start = await fetch(`${dashboard}/auth/github`, { redirect: 'manual' });
    const nonce = setCookies(start).join('; ');
    const authorize = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
    const back = await fetch(authorize.headers.get('location') ?? '', {
      redirect: 'manual',
      headers: { cookie: nonce },
    });
    const session = back.headers.getSetCookie().find((c) => c.startsWith('caravel_session='));
    if (!session)
      throw new Error(`no session for ${account.login}: ${back.headers.get('location')}`);
    return session;
  });
}
