import { embeddedConfigSchema, SERVICES } from '@caravel/cli';
import { loadConfig } from '@caravel/config';
import { DashboardModule } from '@caravel/dashboard';
import { RunRepository, ThreadRepository, type Database } from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import { openEmbeddedRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import { FakeGitHub, githubAppEnv, githubAppKeys, type FakeGithubOAuth } from '@caravel/testing';
import { execFileSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signInEnv } from './dashboard-host.js';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const WEBHOOK_SECRET = 'dashboard-browser-webhook-secret';
const APP_ID = '4711';

/** The repository the run works on: the shipped sample (a slugify that keeps a trailing dash). */
export const REPOSITORY = { owner: 'acme', name: 'web' };

/**
 * The fake GitHub App, holding the agent's `git push` while `hold()` is in force: the run stops
 * before its pull request, so a test can watch it mid-run and let it go on.
 */
export class HeldPushGitHub extends FakeGitHub {
  private held: Promise<void> | null = null;
  private release: () => void = () => undefined;

  hold(): void {
    this.held = new Promise((resolve) => (this.release = resolve));
  }

  letGo(): void {
    this.release();
    this.held = null;
  }

  protected override handleRaw(req: IncomingMessage, res: ServerResponse): boolean {
    const held = this.held;
    if (!held || !(req.url ?? '').includes('git-receive-pack')) return super.handleRaw(req, res);
    req.pause();
    void held.then(() => super.handleRaw(req, res));
    return true;
  }
}

/** The whole platform in this process, with the dashboard serving `webRoot`. */
export interface BrowserPlatform {
  readonly host: ServiceHost;
  readonly bus: Bus;
  readonly database: Database;
  readonly github: HeldPushGitHub;
  /** Posts a GitHub `issue_comment` as GitHub does (signed); answers ingress's verdict. */
  mention(issue: { number: number; title: string }, body: string): Promise<{ threadId: string }>;
  /** Resolves once dispatch has recorded the thread. */
  threadKnown(threadId: string): Promise<void>;
  /** Resolves once a run of the thread has finished. */
  runFinished(threadId: string): Promise<void>;
  close(): Promise<void>;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@caravel.invalid', ...args], {
    cwd,
  });

/** A bare `acme/web` under `root` holding examples/sample-repo as one commit on `main`. */
async function sampleRemote(root: string, scratch: string): Promise<void> {
  const bare = join(root, `${REPOSITORY.owner}/${REPOSITORY.name}.git`);
  await mkdir(bare, { recursive: true });
  git(bare, 'init', '--quiet', '--bare', '--initial-branch=main');
  git(bare, 'config', 'http.receivepack', 'true');
  const work = join(scratch, 'seed');
  await cp(join(EXAMPLES, 'sample-repo'), work, { recursive: true });
  git(work, 'init', '--quiet', '--initial-branch=main');
  git(work, 'add', '-A');
  git(work, 'commit', '--quiet', '-m', 'initial');
  git(work, 'push', '--quiet', bare, 'main');
}

/**
 * Starts every service on the embedded bus and an in-memory PGlite, as `caravel start` does,
 * against a fake GitHub App (webhooks signed, repositories over git smart-HTTP), bubblewrap
 * sandboxes and the scripted model of examples/fix-sample.script.yaml; sign-in goes through
 * `oauth`, `DASHBOARD_ADMINS` is hubot and `DASHBOARD_MEMBERS` octocat (a collaborator on acme/web)
 * and mallory (no access to it); active members of the acme organisation may sign in as well.
 */
export async function startBrowserPlatform(
  webRoot: string,
  oauth: FakeGithubOAuth,
): Promise<BrowserPlatform> {
  const scratch = await mkdtemp(join(tmpdir(), 'caravel-dashboard-browser-'));
  await chmod(scratch, 0o755); // the sandbox user must reach the sandboxes inside
  const { privateKey, publicKey } = githubAppKeys();
  const github = new HeldPushGitHub({
    root: join(scratch, 'remotes'),
    app: { id: APP_ID, publicKey },
  });
  github.addRepository(`${REPOSITORY.owner}/${REPOSITORY.name}`);
  // The dashboard shows a member only the threads of repositories GitHub lets them see.
  github.collaborators.add(`${REPOSITORY.owner}/${REPOSITORY.name}`, 'octocat');
  await sampleRemote(join(scratch, 'remotes'), scratch);
  const origin = await github.start();
  const env = {
    LOG_LEVEL: 'fatal',
    CARAVEL_DATA_DIR: join(scratch, 'data'),
    SANDBOX_ROOT: join(scratch, 'sandboxes'),
    SANDBOX_PROVIDER: 'bwrap',
    CARAVEL_MODEL: `scripted:${join(EXAMPLES, 'fix-sample.script.yaml')}`,
    GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...githubAppEnv(APP_ID, privateKey, origin),
    TRUSTED_AUTHORS: 'github:octocat',
    ...signInEnv(oauth),
    // Members of acme may sign in too; GitHub is asked at each request whether they still are.
    DASHBOARD_ALLOWED_ORGS: 'acme',
    DASHBOARD_ORG_CHECK_SECONDS: '0',
  };
  const config = loadConfig('caravel', embeddedConfigSchema, env);
  const runtime = await openEmbeddedRuntime({
    name: 'dashboard-browser',
    dataDir: env.CARAVEL_DATA_DIR,
    databaseUrl: 'pglite:memory',
  });
  const host = await startServiceHost({
    runtime,
    modules: [
      ...SERVICES.filter((s) => s.name !== 'dashboard').map((s) => s.module(config)),
      DashboardModule.register(config.dashboard, { webRoot }),
    ],
    port: 0,
    logLevels: ['error', 'fatal'],
  });
  const threads = new ThreadRepository(runtime.database.db);
  const runs = new RunRepository(runtime.database.db);
  return {
    host,
    bus: runtime.bus,
    database: runtime.database,
    github,
    async mention(issue, text) {
      const body = JSON.stringify(issueComment(issue, text));
      const response = await fetch(`${host.url}/webhooks/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issue_comment',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`,
        },
        body,
      });
      const answer = (await response.json()) as { accepted?: boolean; threadId?: string };
      if (!answer.accepted || !answer.threadId) {
        throw new Error(`ingress refused the mention: ${JSON.stringify(answer)}`);
      }
      return { threadId: answer.threadId };
    },
    threadKnown: (threadId) =>
      until(async () => (await threads.get(threadId)) !== null, `thread ${threadId}`),
    runFinished: (threadId) =>
      until(
        async () => (await runs.listByThread(threadId)).some((run) => run.finishedAt),
        `a finished run of thread ${threadId}`,
      ),
    async close() {
      github.letGo();
      await host.close();
      await github.close();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** GitHub's `issue_comment.created` for a comment by octocat on an issue of acme/web. */
function issueComment(issue: { number: number; title: string }, body: string) {
  const octocat = { login: 'octocat', id: 583231, type: 'User' };
  return {
    action: 'created',
    issue: {
      id: 7_000_000 + issue.number,
      number: issue.number,
      title: issue.title,
      body: 'slugify("a b-") gives "a-b-".',
      state: 'open',
      user: octocat,
    },
    comment: {
      id: 8_000_000 + issue.number,
      body,
      user: octocat,
      author_association: 'MEMBER',
    },
    repository: {
      name: REPOSITORY.name,
      private: true,
      owner: { login: REPOSITORY.owner, type: 'Organization' },
    },
    sender: octocat,
  };
}

/** Asks `probe` every 100 ms until it holds; fails naming `what` after two minutes. */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 1200; attempt += 1) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
