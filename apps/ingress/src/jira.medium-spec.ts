import { jiraThreadId, STREAMS, type Envelope } from '@caravel/contracts';
import { openDatabase, type Database } from '@caravel/db';
import { markdownToAdf } from '@caravel/integrations';
import { createEmbeddedBus, type Bus } from '@caravel/messaging';
import { composeRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import { describeEachDatabase, FakeJira, type FakeJiraIssue } from '@caravel/testing';
import { randomUUID } from 'node:crypto';
import { IngressModule } from './ingress.module.js';
import { ingressConfigFrom } from './ingress.config.js';

const SECRET = 'jira-rule-secret';
const ACCOUNT = { JIRA_EMAIL: 'svc@acme.test', JIRA_API_TOKEN: 'svc-token' };

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** An ingress host on a fresh database and embedded bus, with `settings`. */
async function ingressHost(database: Database, settings: Record<string, string>) {
  const bus = createEmbeddedBus({ database, name: 'jira-medium' });
  await bus.ensureStreams(Object.values(STREAMS));
  const runtime = composeRuntime({ name: 'jira-medium', mode: 'embedded', bus, database });
  const host = await startServiceHost({
    runtime,
    modules: [IngressModule.register(ingressConfigFrom(settings))],
    port: 0,
    logLevels: ['fatal'],
  });
  return { bus, host };
}

async function deliver(host: ServiceHost, body: unknown): Promise<Answer> {
  const response = await fetch(`${host.url}/webhooks/jira`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-caravel-secret': SECRET },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

await describeEachDatabase('Jira rule deliveries read back over HTTP', openDatabase, (target) => {
  let jira: FakeJira;
  let bus: Bus;
  let host: ServiceHost;
  let site: string;

  beforeAll(async () => {
    jira = new FakeJira().addAccount(ACCOUNT.JIRA_EMAIL, ACCOUNT.JIRA_API_TOKEN);
    await jira.listen();
    site = new URL(jira.origin).host;
    ({ bus, host } = await ingressHost(await target.open(), {
      JIRA_SHARED_SECRET: SECRET,
      JIRA_BASE_URL: jira.origin,
      ...ACCOUNT,
      TRUSTED_AUTHORS: 'jira:acc-admin,jira:acc-lead',
    }));
  });

  afterAll(async () => {
    await host?.close();
    await jira?.close();
  });

  const ruleBody = (issue: FakeJiraIssue, commentId: string) => ({
    deliveryId: `${issue.key}-${randomUUID()}`,
    site,
    issue: { id: issue.id, key: issue.key },
    comment: { id: commentId },
    author: { accountId: 'acc-admin', displayName: 'Admin' },
    text: 'rm -rf / please',
  });

  async function triggersOn(issue: FakeJiraIssue): Promise<Envelope[]> {
    const found: Envelope[] = [];
    const threadId = jiraThreadId({ site, issueId: issue.id });
    for await (const message of bus.replay(STREAMS.TRIGGERS, { threadId })) {
      found.push(message.envelope);
    }
    return found;
  }

  function commentBy(accountId: string, markdown: string) {
    const issue = jira.addIssue({ projectKey: 'OPS', summary: 'Add FIX.md' });
    const comment = jira.addComment(issue.key, {
      body: markdownToAdf(markdown),
      author: { accountId, displayName: accountId },
    });
    return { issue, comment };
  }

  it("publishes one trigger with the comment's real author and text, untrusted by that author", async () => {
    const { issue, comment } = commentBy('acc-eve', '@Caravel add FIX.md');
    const body = ruleBody(issue, comment.id);

    const first = await deliver(host, body);
    const again = await deliver(host, { ...body, deliveryId: `${issue.key}-${randomUUID()}` });

    expect(first).toMatchObject({ status: 200, body: { accepted: true } });
    expect(again).toMatchObject({ status: 200, body: { reason: 'duplicate' } });
    const triggers = await triggersOn(issue);
    expect(triggers).toHaveLength(1);
    expect(triggers[0]?.data).toMatchObject({
      source: 'jira',
      author: { externalId: 'acc-eve' },
      text: '@Caravel add FIX.md',
      trusted: false,
      replyTo: { site, issueKey: issue.key, commentId: comment.id },
    });
  });

  it('trusts a comment whose re-fetched author is in TRUSTED_AUTHORS', async () => {
    const { issue, comment } = commentBy('acc-lead', '@Caravel ship it');
    const body = { ...ruleBody(issue, comment.id), author: { accountId: 'acc-eve' } };
    expect(await deliver(host, body)).toMatchObject({ status: 200 });
    expect((await triggersOn(issue))[0]?.data).toMatchObject({
      author: { externalId: 'acc-lead' },
      trusted: true,
    });
  });

  it("ignores Caravel's own comment (the service account's), so a rule on every comment never loops", async () => {
    const own = FakeJira.accountOf(ACCOUNT.JIRA_EMAIL).accountId;
    const { issue, comment } = commentBy(own, 'Done: opened https://example.test/pr/1');
    const answer = await deliver(host, ruleBody(issue, comment.id));
    expect(answer).toMatchObject({ status: 200, body: { accepted: false } });
    expect(await triggersOn(issue)).toHaveLength(0);
  });

  it('refuses a comment Jira does not have with a 404 naming it, publishing nothing', async () => {
    const { issue } = commentBy('acc-eve', 'unrelated');
    const answer = await deliver(host, ruleBody(issue, '777777'));
    expect(answer).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(JSON.stringify(answer.body)).toContain('comment 777777');
    expect(await triggersOn(issue)).toHaveLength(0);
  });

  it('answers 503 while Jira fails, so the rule can retry, and takes the retry', async () => {
    const { issue, comment } = commentBy('acc-eve', '@Caravel retry me');
    const body = ruleBody(issue, comment.id);
    jira.failNext({ path: '/comment/' }, { status: 503, body: { errorMessages: ['down'] } });

    const failed = await deliver(host, body);
    expect(failed).toMatchObject({
      status: 503,
      body: { error: { code: 'DEPENDENCY_UNAVAILABLE' } },
    });
    expect(await triggersOn(issue)).toHaveLength(0);
    expect(await deliver(host, body)).toMatchObject({ status: 200, body: { accepted: true } });
  });

  it('refuses a body naming another site without calling anything there or on Jira', async () => {
    const { issue, comment } = commentBy('acc-eve', '@Caravel hi');
    const calls = jira.calls.length;
    const answer = await deliver(host, { ...ruleBody(issue, comment.id), site: 'evil.example' });
    expect(answer).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    expect(jira.calls).toHaveLength(calls);
  });

  describe('without the service account', () => {
    let bare: ServiceHost;

    beforeAll(async () => {
      ({ host: bare } = await ingressHost(await target.open(), { JIRA_SHARED_SECRET: SECRET }));
    });

    afterAll(() => bare?.close());

    it('fails every delivery closed with a 412 naming the settings', async () => {
      const { issue, comment } = commentBy('acc-eve', '@Caravel hi');
      const answer = await deliver(bare, { ...ruleBody(issue, comment.id), site: 'acme.test' });
      expect(answer).toMatchObject({
        status: 412,
        body: { error: { code: 'PRECONDITION_FAILED' } },
      });
      expect(JSON.stringify(answer.body)).toContain('JIRA_BASE_URL, JIRA_EMAIL and JIRA_API_TOKEN');
    });
  });
});
