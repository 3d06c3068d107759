import { loadConfig } from '@caravel/config';
import { githubThreadId, jiraThreadId, slackThreadId } from '@caravel/contracts';
import { RunRepository, openDatabase, type Database } from '@caravel/db';
import { DispatchModule } from '@caravel/dispatch';
import { IngressModule, ingressConfigFrom } from '@caravel/ingress';
import { markdownToAdf } from '@caravel/integrations';
import { deleteJetStreamNamespace } from '@caravel/messaging/testing';
import { openDistributedRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import {
  createTestPostgresDatabase,
  FakeJira,
  serviceGate,
  testEnvironment,
  type FakeJiraIssue,
  type TestPostgresDatabase,
} from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { embeddedConfigSchema } from '@caravel/cli';

// Issue 5's redelivery acceptance: the same Slack event 4 times, the same GitHub delivery 10
// times and the same Jira delivery 5 times, sent concurrently to 3 ingress instances (each with
// its own NATS connection and database pool, as separate processes would have) and again after
// 3 minutes on the ingress clock, start exactly one run each.
const GITHUB_SECRET = 'redelivery-github';
const SLACK_SECRET = 'redelivery-slack';
const JIRA_SECRET = 'redelivery-jira';
const INGRESSES = 3;

const gate = await serviceGate(['nats', 'postgres']);

/** The ingress clock: every instance reads it, the test moves it. */
let now = Date.parse('2026-11-30T09:00:00Z');
const clock = { now: () => new Date(now) };

const sign = (secret: string, data: string) =>
  createHmac('sha256', secret).update(data).digest('hex');

interface Delivery {
  path: string;
  body: string;
  headers: () => Record<string, string>;
}

function githubDelivery(number: number): Delivery {
  const body = JSON.stringify({
    action: 'created',
    issue: { id: 7_000_000 + number, number, title: 'Parser crash', body: '' },
    comment: {
      id: 8_000_000 + number,
      body: '@caravel fix the parser',
      user: { login: 'octocat', type: 'User' },
      author_association: 'MEMBER',
    },
    repository: { name: 'widgets', private: true, owner: { login: 'acme', type: 'Organization' } },
    sender: { login: 'octocat', type: 'User' },
  });
  const delivery = randomUUID();
  return {
    path: '/webhooks/github',
    body,
    headers: () => ({
      'x-github-event': 'issue_comment',
      'x-github-delivery': delivery,
      'x-hub-signature-256': `sha256=${sign(GITHUB_SECRET, body)}`,
    }),
  };
}

function slackDelivery(ts: string): Delivery {
  const body = JSON.stringify({
    type: 'event_callback',
    team_id: 'T0RED',
    event_id: `Ev${ts.replace('.', '')}`,
    event_time: Math.floor(now / 1000),
    event: {
      type: 'app_mention',
      channel: 'C0RED',
      user: 'U0PERSON',
      text: '<@UBOT> fix the parser',
      ts,
      event_ts: ts,
    },
  });
  return {
    path: '/webhooks/slack',
    body,
    // Each (re)try is signed when it is sent, as Slack does.
    headers: () => {
      const timestamp = String(Math.floor(now / 1000));
      return {
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': `v0=${sign(SLACK_SECRET, `v0:${timestamp}:${body}`)}`,
      };
    },
  };
}

/** The rule's call for a comment on `issue`, which ingress reads back from the fake Jira. */
function jiraDelivery(site: string, issue: FakeJiraIssue, commentId: string): Delivery {
  const body = JSON.stringify({
    deliveryId: `${issue.key}-1764493200000`,
    site,
    issue: { id: issue.id, key: issue.key },
    comment: { id: commentId },
    author: { accountId: '5b10a2844c20165700ede21g', displayName: 'Ada' },
    repository: 'acme/widgets',
  });
  return { path: '/webhooks/jira', body, headers: () => ({ 'x-caravel-secret': JIRA_SECRET }) };
}

gate.describe('redelivered webhooks across three ingress instances (NATS + PostgreSQL)', () => {
  const namespace = `r${randomBytes(5).toString('hex')}`;
  const jira = new FakeJira().addAccount('svc@acme.test', 'svc-token');
  let database: TestPostgresDatabase;
  let runs: RunRepository;
  let reader: Database;
  const hosts: ServiceHost[] = [];

  async function host(
    name: string,
    module: Parameters<typeof startServiceHost>[0]['modules'][number],
  ) {
    const runtime = await openDistributedRuntime({
      name,
      natsUrl: testEnvironment.TEST_NATS_URL,
      databaseUrl: database.url,
      busNamespace: namespace,
    });
    const started = await startServiceHost({
      runtime,
      modules: [module],
      port: 0,
      logLevels: ['fatal'],
    });
    hosts.push(started);
    return started;
  }

  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    const config = loadConfig('caravel', embeddedConfigSchema, {
      CARAVEL_DATA_DIR: '/tmp/caravel-redelivery',
      LOG_LEVEL: 'fatal',
    });
    await host('dispatch', DispatchModule.register(config.dispatch));
    await jira.listen();
    const settings = ingressConfigFrom({
      GITHUB_WEBHOOK_SECRET: GITHUB_SECRET,
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_BOT_USER_ID: 'UBOT',
      JIRA_SHARED_SECRET: JIRA_SECRET,
      JIRA_BASE_URL: jira.origin,
      JIRA_EMAIL: 'svc@acme.test',
      JIRA_API_TOKEN: 'svc-token',
    });
    for (let i = 0; i < INGRESSES; i += 1) {
      await host(`ingress-${i}`, IngressModule.register(settings, clock));
    }
    reader = await openDatabase({ url: database.url });
    runs = new RunRepository(reader.db);
  }, 120_000);

  afterAll(async () => {
    for (const started of hosts) await started.close();
    await jira.close();
    await reader?.close();
    await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
    await database?.drop();
  });

  /** Sends `delivery` `times` times at once, round-robin over the ingress instances. */
  function burst(delivery: Delivery, times: number): Promise<number[]> {
    const ingresses = hosts.slice(1);
    return Promise.all(
      Array.from({ length: times }, async (_, i) => {
        const target = ingresses[i % ingresses.length];
        const response = await fetch(`${target?.url}${delivery.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...delivery.headers() },
          body: delivery.body,
        });
        const answer = (await response.json()) as { accepted?: boolean; reason?: string };
        if (answer.accepted !== true && answer.reason !== 'duplicate') {
          throw new Error(`${delivery.path} answered ${response.status} ${JSON.stringify(answer)}`);
        }
        return answer.accepted === true ? 1 : 0;
      }),
    );
  }

  async function settledRuns(threadId: string): Promise<number> {
    let count = -1;
    // Dispatch takes the trigger asynchronously: wait until a run exists, then a little longer
    // for a second one that should never come (the bus has already delivered everything once).
    for (let i = 0; i < 300 && count < 1; i += 1) {
      count = (await runs.listByThread(threadId)).length;
      if (count < 1) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return count;
  }

  it('starts exactly one run per request, also when it comes again 3 minutes later', async () => {
    const number = 100 + Math.floor(Math.random() * 10_000);
    const ts = `${Math.floor(now / 1000)}.${String(number).padStart(6, '0')}`;
    const site = new URL(jira.origin).host;
    const issue = jira.addIssue({ projectKey: 'RED', summary: 'Parser crash' });
    const comment = jira.addComment(issue.key, {
      body: markdownToAdf('@caravel fix it'),
      author: { accountId: '5b10a2844c20165700ede21g', displayName: 'Ada' },
    });
    const cases = [
      {
        delivery: githubDelivery(number),
        times: 10,
        thread: githubThreadId({ owner: 'acme', repo: 'widgets', number }),
      },
      {
        delivery: slackDelivery(ts),
        times: 4,
        thread: slackThreadId({ team: 'T0RED', channel: 'C0RED', threadTs: ts }),
      },
      {
        delivery: jiraDelivery(site, issue, comment.id),
        times: 5,
        thread: jiraThreadId({ site, issueId: issue.id }),
      },
    ];

    const accepted = await Promise.all(cases.map((c) => burst(c.delivery, c.times)));
    expect(accepted.map((answers) => answers.reduce((a, b) => a + b, 0))).toEqual([1, 1, 1]);

    now += 3 * 60_000;
    const later = await Promise.all(cases.map((c) => burst(c.delivery, c.times)));
    expect(later.flat().every((answer) => answer === 0)).toBe(true);

    for (const c of cases) expect(await settledRuns(c.thread)).toBe(1);
    // Everything published has been delivered by now; nothing else may have appeared.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const finalCounts = await Promise.all(
      cases.map(async (c) => (await runs.listByThread(c.thread)).length),
    );
    expect(finalCounts).toEqual([1, 1, 1]);
  }, 120_000);
});
