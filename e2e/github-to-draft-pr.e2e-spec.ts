import { startEmbedded } from '@caravel/cli';
import type { ServiceHost } from '@caravel/platform';
import { FakeGitHub, serviceGate, testEnvironment } from '@caravel/testing';
import { execFileSync } from 'node:child_process';
import { createHmac, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { deleteJetStreamNamespace } from '../libs/messaging/src/jetstream/jetstream-bus.harness.js';
import { buildWorkspace, freePort, ServiceProcess } from './support/processes.js';
import { eventually, expectReady, type RunView } from './support/walking-skeleton.js';

const SECRET = 'e2e-github-secret';
const APP_ID = '4242';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** GitHub's own `issue_comment` example, its comment now mentioning the bot. */
function mentionPayload(text: string): {
  body: string;
  owner: string;
  name: string;
  issue: number;
} {
  const examples = createRequire(import.meta.url)(
    '@octokit/webhooks-examples/api.github.com/index.json',
  ) as { name: string; examples: Record<string, unknown>[] }[];
  const example = examples
    .find((event) => event.name === 'issue_comment')
    ?.examples.find((payload) => payload['action'] === 'created');
  if (!example) throw new Error('no issue_comment.created example');
  const payload = structuredClone(example) as {
    comment: { body: string; id: number };
    repository: { name: string; owner: { login: string } };
    issue: { number: number };
  };
  payload.comment.body = text;
  payload.comment.id = Number.parseInt(randomBytes(3).toString('hex'), 16);
  return {
    body: JSON.stringify(payload),
    owner: payload.repository.owner.login,
    name: payload.repository.name,
    issue: payload.issue.number,
  };
}

/** The scripted agent: edit a file, commit and open the draft PR, answer, submit. */
const SCRIPT = `responses:
  - content: Fixing it.
    tool_calls:
      - name: execute
        args: { command: 'echo "fixed by caravel" > FIX.md' }
  - content: Publishing.
    tool_calls:
      - name: commit_and_open_pr
        args: { commit_message: 'Add FIX.md', title: 'Add FIX.md', body: 'Fixes the issue.' }
  - content: Answering.
    tool_calls:
      - name: reply_to_user
        args: { text: 'Opened a draft PR with the fix.' }
  - content: Done.
    tool_calls:
      - name: submit
        args: {}
`;

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' }).trim();

/** A fake GitHub App serving `owner/name` over REST and git smart-HTTP, and the env to reach it. */
class GitHubWorld {
  readonly github: FakeGitHub;
  private bare = '';

  constructor(
    readonly dir: string,
    readonly owner: string,
    readonly name: string,
  ) {
    this.github = new FakeGitHub({ root: join(dir, 'remotes'), app: { id: APP_ID, publicKey } });
    this.github.addRepository(`${owner}/${name}`);
  }

  async start(): Promise<Record<string, string>> {
    this.bare = join(this.dir, 'remotes', this.owner, `${this.name}.git`);
    await mkdir(this.bare, { recursive: true });
    git(this.bare, 'init', '--quiet', '--bare', '--initial-branch=main');
    git(this.bare, 'config', 'http.receivepack', 'true');
    const seed = await mkdtemp(join(tmpdir(), 'caravel-e2e-seed-'));
    git(seed, 'init', '--quiet', '--initial-branch=main');
    await writeFile(join(seed, 'README.md'), '# Hello World\n');
    git(seed, 'add', '.');
    git(seed, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'seed');
    git(seed, 'push', '--quiet', this.bare, 'main');
    await rm(seed, { recursive: true, force: true });
    const origin = await this.github.start();
    return {
      GITHUB_WEBHOOK_SECRET: SECRET,
      GITHUB_APP_ID: APP_ID,
      GITHUB_APP_PRIVATE_KEY: PEM.replace(/\n/g, '\\n'),
      GITHUB_API_URL: origin,
      GITHUB_HOST: origin,
      TRUSTED_AUTHORS: `github:${this.owner}`,
    };
  }

  /** Signs and delivers a mention; resolves with the thread ingress derived. */
  async deliver(ingressUrl: string, text: string): Promise<string> {
    const { body } = mentionPayload(text);
    const response = await fetch(`${ingressUrl}/webhooks/github`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      },
      body,
    });
    const answer = (await response.json()) as { accepted: boolean; threadId: string };
    expect(answer).toMatchObject({ accepted: true });
    return answer.threadId;
  }

  /**
   * The mention became a pushed branch, a draft PR from it, a reply on the issue, and a run the
   * dashboard API at `apiUrl` lists as submitted.
   */
  async expectDraftPrAndReply(threadId: string, issue: number, apiUrl: string): Promise<void> {
    const branch = `caravel/${threadId.slice(0, 8)}`;
    const key = `${this.owner}/${this.name}`.toLowerCase();
    const pull = await eventually(
      () => Promise.resolve(this.github.state.pulls.get(key)?.find((p) => p.head === branch)),
      120_000,
    );
    expect(pull).toMatchObject({ base: 'main', title: 'Add FIX.md', draft: true });
    expect(git(this.bare, 'show', `${branch}:FIX.md`)).toBe('fixed by caravel');
    const reply = await eventually(() =>
      Promise.resolve(
        this.github.state.issueComments
          .get(`${key}#${issue}`)
          ?.find((c) => c.body.includes('Opened a draft PR with the fix.')),
      ),
    );
    expect(reply.body).toContain('caravel-idempotency-key');
    // Every GitHub call and git request carried an installation token the fake minted.
    expect(this.github.rejected).toEqual([]);
    expect(this.github.minted.length).toBeGreaterThan(0);
    const run = await eventually(async () => {
      const response = await fetch(`${apiUrl}/api/threads/${threadId}`);
      if (response.status !== 200) return undefined;
      const detail = (await response.json()) as { runs: RunView[] };
      return detail.runs.find((r) => ['completed', 'failed', 'interrupted'].includes(r.status));
    });
    expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
  }
}

describe('a signed GitHub mention becomes a draft PR and a reply (embedded platform)', () => {
  let dir: string;
  let world: GitHubWorld;
  let host: ServiceHost;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-e2e-gh-pr-'));
    await chmod(dir, 0o755);
    const { owner, name } = mentionPayload('');
    world = new GitHubWorld(dir, owner, name);
    const env = await world.start();
    const script = join(dir, 'fix.script.yaml');
    await writeFile(script, SCRIPT);
    host = await startEmbedded(
      {
        ...env,
        LOG_LEVEL: 'warn',
        CARAVEL_MODEL: `scripted:${script}`,
        SANDBOX_ROOT: join(dir, 'sandboxes'),
      },
      { dataDir: join(dir, 'data'), port: 0, handleSignals: false },
    );
  });

  afterAll(async () => {
    await host.close();
    await world.github.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('edits the repository in the sandbox, pushes through the proxy, opens a draft PR and replies', async () => {
    const { issue } = mentionPayload('');
    const threadId = await world.deliver(host.url, '@caravel please add FIX.md');
    await world.expectDraftPrAndReply(threadId, issue, host.url);
  });
});

const gate = await serviceGate(['nats', 'postgres']);

gate.describe(
  'a signed GitHub mention becomes a draft PR and a reply (processes on NATS + PostgreSQL)',
  () => {
    const namespace = `e${randomBytes(4).toString('hex')}`;
    const database = `caravel_e2e_${namespace}`;
    const admin = new pg.Client({ connectionString: testEnvironment.TEST_DATABASE_URL });
    const processes: ServiceProcess[] = [];
    let dir: string;
    let world: GitHubWorld;

    beforeAll(async () => {
      buildWorkspace();
      dir = await mkdtemp(join(tmpdir(), 'caravel-e2e-gh-pr-'));
      await chmod(dir, 0o755);
      const { owner, name } = mentionPayload('');
      world = new GitHubWorld(dir, owner, name);
      const github = await world.start();
      const script = join(dir, 'fix.script.yaml');
      await writeFile(script, SCRIPT);
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      const url = new URL(testEnvironment.TEST_DATABASE_URL);
      url.pathname = `/${database}`;
      const env = {
        ...github,
        CARAVEL_MODEL: `scripted:${script}`,
        SANDBOX_ROOT: join(dir, 'sandboxes'),
        NATS_URL: testEnvironment.TEST_NATS_URL,
        DATABASE_URL: url.toString(),
        BUS_NAMESPACE: namespace,
        LOG_LEVEL: 'warn',
        SHUTDOWN_GRACE_MS: '10000',
      };
      for (const name of ['ingress', 'dispatch', 'agent-runner', 'sandbox-broker', 'dashboard']) {
        processes.push(new ServiceProcess(name, await freePort(), env));
      }
      for (const service of processes) {
        await expectReady(service.url).catch((error: unknown) => {
          throw new Error(`${service.name} never became ready: ${String(error)}\n${service.log}`);
        });
      }
    });

    afterAll(async () => {
      await Promise.all(processes.map((p) => p.stop()));
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
      await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
      await world.github.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('edits the repository in the sandbox, pushes through the proxy, opens a draft PR and replies', async () => {
      const ingress = processes.find((p) => p.name === 'ingress');
      const dashboard = processes.find((p) => p.name === 'dashboard');
      if (!ingress || !dashboard) throw new Error('no ingress or dashboard process');
      const { issue } = mentionPayload('');
      const threadId = await world.deliver(ingress.url, '@caravel please add FIX.md');
      await world.expectDraftPrAndReply(threadId, issue, dashboard.url).catch((error: unknown) => {
        const logs = processes.map((p) => `--- ${p.name}\n${p.log}`).join('\n');
        throw new Error(`${String(error)}\n${logs}`);
      });
    });
  },
);
