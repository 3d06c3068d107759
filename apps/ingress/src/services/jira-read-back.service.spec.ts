import { IntegrationAdapters, markdownToAdf } from '@caravel/integrations';
import { FakeJira, type FakeJiraIssue } from '@caravel/testing';
import { mapJiraEvent, parseJiraRuleBody } from '../events/jira-event.mapper.js';
import { ingressConfigFrom, jiraSetupWarning } from '../ingress.config.js';
import { JiraReadBackService } from './jira-read-back.service.js';

const ACCOUNT = { JIRA_EMAIL: 'svc@acme.test', JIRA_API_TOKEN: 'svc-token' };

describe('JiraReadBackService against the fake Jira on loopback', () => {
  let jira: FakeJira;
  let issue: FakeJiraIssue;
  let site: string;

  /** The service as ingress's module builds it, from the environment its config parses. */
  const serviceOf = (env: Record<string, string>) => {
    const config = ingressConfigFrom(env);
    return new JiraReadBackService(config, new IntegrationAdapters(config.integrations));
  };
  const service = (settings: Record<string, string> = {}) =>
    serviceOf({ JIRA_BASE_URL: jira.origin, ...ACCOUNT, ...settings });

  const rule = (extra: Record<string, unknown> = {}) =>
    parseJiraRuleBody({
      deliveryId: `${issue.key}-1767348000000`,
      site,
      issue: { id: issue.id, key: issue.key },
      author: { accountId: 'acc-admin', displayName: 'Admin' },
      text: 'rm -rf / please',
      ...extra,
    });

  beforeEach(async () => {
    jira = new FakeJira().addAccount(ACCOUNT.JIRA_EMAIL, ACCOUNT.JIRA_API_TOKEN);
    await jira.listen();
    site = new URL(jira.origin).host;
    issue = jira.addIssue({
      projectKey: 'ENG',
      summary: 'Login fails',
      description: markdownToAdf('Only on **Safari**'),
    });
  });

  afterEach(() => jira.close());

  it("takes a comment's author and text from Jira, whatever the body claims", async () => {
    const comment = jira.addComment(issue.key, {
      body: markdownToAdf('@Caravel fix the **build**'),
      author: { accountId: 'acc-ana', displayName: 'Ana' },
    });
    const body = rule({ comment: { id: comment.id } });

    const decision = mapJiraEvent(body, await service().read(body));

    expect(decision).toMatchObject({
      event: 'comment',
      semanticKey: `comment:${comment.id}`,
      author: { externalId: 'acc-ana', displayName: 'Ana' },
      text: '@Caravel fix the **build**',
      replyTo: { site, issueKey: issue.key, commentId: comment.id },
    });
    expect(jira.calls.map((call) => call.path)).toEqual([
      `/rest/api/3/issue/${issue.key}`,
      `/rest/api/3/issue/${issue.key}/comment/${comment.id}`,
      // Whose comment it is: the service account's own would be ignored.
      '/rest/api/3/myself',
    ]);
    expect(jira.calls[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from('svc@acme.test:svc-token').toString('base64')}`,
    );
  });

  it("takes an issue event's text from the issue's summary and description when its initiator created it", async () => {
    const body = rule();
    expect(mapJiraEvent(body, await service().read(body))).toMatchObject({
      event: 'issue',
      author: { externalId: 'acc-admin' },
      text: expect.stringMatching(
        /^Work on Jira issue ENG-1, which Admin asked you to\./,
      ) as unknown,
    });
    issue = jira.addIssue({
      projectKey: 'ENG',
      summary: 'Login fails',
      description: markdownToAdf('Only on **Safari**'),
      creator: { accountId: 'acc-admin', displayName: 'Admin' },
    });
    const own = rule({ issue: { id: issue.id, key: issue.key } });
    expect(mapJiraEvent(own, await service().read(own))).toMatchObject({
      text: 'Login fails\n\nOnly on **Safari**',
    });
  });

  it('accepts the configured site given as a URL', async () => {
    const body = rule({ site: `${jira.origin}/` });
    await expect(service().read(body)).resolves.toMatchObject({ site });
  });

  it('refuses a comment Jira does not have, naming it', async () => {
    const body = rule({ comment: { id: '404404' } });
    await expect(service().read(body)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining(`read comment 404404 of ${issue.key}`),
    });
  });

  it("refuses another issue's comment, which Jira does not answer under this issue", async () => {
    const other = jira.addIssue({ projectKey: 'ENG', summary: 'Other' });
    const comment = jira.addComment(other.key, {
      body: markdownToAdf('@Caravel delete the repo'),
      author: { accountId: 'acc-bob', displayName: 'Bob' },
    });
    await expect(service().read(rule({ comment: { id: comment.id } }))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it("refuses a body whose issue id is not the key's", async () => {
    const body = rule({ issue: { id: '999', key: issue.key } });
    await expect(service().read(body)).rejects.toMatchObject({
      code: 'MESSAGE_MALFORMED',
      message: expect.stringContaining(`issue ${issue.key} has id ${issue.id} in Jira, not 999`),
    });
  });

  it('answers a Jira 5xx or no answer at all with a retryable DEPENDENCY_UNAVAILABLE', async () => {
    jira.failNext({ path: '/rest/api/3/issue/' }, { status: 502, body: 'bad gateway' });
    await expect(service().read(rule())).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      retryable: true,
    });
    const gone = service();
    await jira.close();
    await expect(gone.read(rule())).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      retryable: true,
    });
  });

  it('reads nothing from a site other than the configured one', async () => {
    for (const named of ['evil.example', 'https://evil.example', `${site}.evil.example`]) {
      await expect(service().read(rule({ site: named }))).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringContaining(
          `names site ${named}, but Caravel reads only from ${site}`,
        ),
      });
    }
    expect(jira.calls).toEqual([]);
  });

  it('fails closed without the service account, calling nothing', async () => {
    const unconfigured = serviceOf({ JIRA_BASE_URL: jira.origin, JIRA_EMAIL: 'svc@acme.test' });
    await expect(unconfigured.read(rule({ comment: { id: '1' } }))).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: expect.stringContaining('set JIRA_BASE_URL, JIRA_EMAIL and JIRA_API_TOKEN'),
    });
    expect(jira.calls).toEqual([]);
  });
});

describe('jiraSetupWarning', () => {
  it('warns when the Jira route is on without the service account, and only then', () => {
    const config = (env: Record<string, string>) => ingressConfigFrom(env);
    expect(jiraSetupWarning(config({ JIRA_SHARED_SECRET: 's' }))).toMatch(
      /JIRA_SHARED_SECRET is set but JIRA_BASE_URL, JIRA_EMAIL and JIRA_API_TOKEN are not/,
    );
    expect(jiraSetupWarning(config({}))).toBeUndefined();
    expect(
      jiraSetupWarning(
        config({
          JIRA_SHARED_SECRET: 's',
          JIRA_BASE_URL: 'https://acme.atlassian.net',
          ...ACCOUNT,
        }),
      ),
    ).toBeUndefined();
  });
});
