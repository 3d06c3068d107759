import { loadConfig } from '@caravel/config';
import { slackThreadId } from '@caravel/contracts';
import { IdentityRepository, RunRepository, openDatabase, type Database } from '@caravel/db';
import { DispatchModule } from '@caravel/dispatch';
import { IngressModule, ingressConfigFrom } from '@caravel/ingress';
import { deleteJetStreamNamespace } from '@caravel/messaging/testing';
import { openDistributedRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import {
  createTestPostgresDatabase,
  FakeGitHub,
  FakeSlack,
  githubAppEnv,
  githubAppKeys,
  serviceGate,
  testEnvironment,
  type TestPostgresDatabase,
} from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { embeddedConfigSchema } from '@caravel/cli';

// A person in Slack names a repository with `repo:owner/name`; Caravel works on it with the
// GitHub App's access. So it does only when the person's linked GitHub account can see the
// repository: an unlinked person, or one without access, is answered in the thread and no run
// starts (a confused deputy otherwise: any channel member could read any private repository).
const SLACK_SECRET = 'chat-access-slack';
const BOT_TOKEN = 'xoxb-chat-access';
const CHANNEL = 'C0ACCESS';
const PRIVATE = 'acme/payroll-private';

const gate = await serviceGate(['nats', 'postgres']);

const sign = (data: string) => createHmac('sha256', SLACK_SECRET).update(data).digest('hex');

gate.describe('a repository named in Slack is used only by people who can see it', () => {
  const namespace = `a${randomBytes(5).toString('hex')}`;
  const keys = githubAppKeys();
  const github = new FakeGitHub({ app: { id: '4242', publicKey: keys.publicKey } });
  const slack = new FakeSlack().addToken(BOT_TOKEN).addChannel(CHANNEL);
  let database: TestPostgresDatabase;
  let reader: Database;
  let runs: RunRepository;
  let ingress: ServiceHost;
  const hosts: ServiceHost[] = [];
  /** Threads whose request was refused: still without a run once an allowed one has its run. */
  const refused: string[] = [];

  async function host(
    name: string,
    module: Parameters<typeof startServiceHost>[0]['modules'][number],
  ): Promise<ServiceHost> {
    const runtime = await openDistributedRuntime({
      name,
      natsUrl: testEnvironment.TEST_NATS_URL,
      databaseUrl: database.url,
      busNamespace: namespace,
    });
    const started = await startServiceHost({ runtime, modules: [module], port: 0 });
    hosts.push(started);
    return started;
  }

  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    const origin = await github.start();
    github.addRepository(PRIVATE);
    github.collaborators.add(PRIVATE, 'ada');
    await slack.listen();
    // Dispatch holds the App and asks GitHub what the person may see; the ingress holds no App.
    const config = loadConfig('caravel', embeddedConfigSchema, {
      CARAVEL_DATA_DIR: '/tmp/caravel-chat-access',
      LOG_LEVEL: 'fatal',
      ...githubAppEnv('4242', keys.privateKey, origin),
    });
    await host('dispatch', DispatchModule.register(config.dispatch));
    const settings = ingressConfigFrom({
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_BOT_USER_ID: 'UBOT',
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_API_URL: slack.apiUrl,
    });
    ingress = await host('ingress', IngressModule.register(settings));
    reader = await openDatabase({ url: database.url });
    runs = new RunRepository(reader.db);
    const identities = new IdentityRepository(reader.db);
    await identities.insert(randomUUID(), { slackUserId: 'U0ADA', githubLogin: 'ada' });
    await identities.insert(randomUUID(), { slackUserId: 'U0BOB', githubLogin: 'bob' });
  }, 120_000);

  afterAll(async () => {
    for (const started of hosts) await started.close();
    await slack.close();
    await github.close();
    await reader?.close();
    await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
    await database?.drop();
  });

  /** `user` mentions Caravel with `text` in a new thread; ingress's answer and the thread. */
  async function mention(user: string, text: string) {
    const ts = slack.seed(CHANNEL, `<@UBOT> ${text}`, user);
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: 'T0ACCESS',
      event_id: `Ev${ts.replace('.', '')}`,
      event_time: Math.floor(Date.now() / 1000),
      event: { type: 'app_mention', channel: CHANNEL, user, text: `<@UBOT> ${text}`, ts },
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const response = await fetch(`${ingress.url}/webhooks/slack`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': `v0=${sign(`v0:${timestamp}:${body}`)}`,
      },
      body,
    });
    const answer = (await response.json()) as { accepted?: boolean; reason?: string };
    const threadId = slackThreadId({ team: 'T0ACCESS', channel: CHANNEL, threadTs: ts });
    return { answer, threadId, ts };
  }

  /** Caravel's own messages in the Slack thread `ts`. */
  const replies = (ts: string) =>
    slack.messages.filter((m) => m.thread_ts === ts && m.ts !== ts).map((m) => m.text);

  async function runsOnceTaken(threadId: string): Promise<number> {
    for (let i = 0; i < 300; i += 1) {
      const count = (await runs.listByThread(threadId)).length;
      if (count > 0) return count;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return 0;
  }

  it('refuses an unlinked person naming a private repository, in the thread, with no run', async () => {
    const { answer, threadId, ts } = await mention('U0STRANGER', `summarise auth repo:${PRIVATE}`);

    expect(answer.accepted).not.toBe(true);
    expect(answer.reason).toContain(PRIVATE);
    expect(replies(ts)).toEqual([
      expect.stringMatching(/acme\/payroll-private[\s\S]*not linked to a GitHub account/),
    ]);
    refused.push(threadId);
  });

  it('refuses a linked person whose GitHub account cannot see the repository', async () => {
    const { answer, threadId, ts } = await mention('U0BOB', `summarise auth repo:${PRIVATE}`);

    expect(answer.accepted).not.toBe(true);
    expect(replies(ts)).toEqual([
      expect.stringMatching(/@bob has no access to acme\/payroll-private/),
    ]);
    refused.push(threadId);
  });

  it('refuses a repository the App is not installed on, saying so', async () => {
    const { answer, threadId, ts } = await mention('U0ADA', 'summarise repo:acme/elsewhere');

    expect(answer.accepted).not.toBe(true);
    expect(replies(ts)).toEqual([expect.stringMatching(/GitHub App cannot see it/)]);
    refused.push(threadId);
  });

  it('starts the run of a linked person who can see the repository', async () => {
    const { answer, threadId, ts } = await mention('U0ADA', `summarise auth repo:${PRIVATE}`);

    expect(answer.accepted).toBe(true);
    expect(await runsOnceTaken(threadId)).toBe(1);
    expect(replies(ts).some((text) => /no access|not linked/.test(text))).toBe(false);
    // Dispatch has taken this later trigger: the refused ones never reached it.
    expect(refused).toHaveLength(3);
    for (const thread of refused) expect(await runs.listByThread(thread)).toEqual([]);
  });
});
