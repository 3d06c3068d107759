import { FakeJira, rateLimited } from '@caravel/testing';
import { markdownToAdf } from '../markup/adf.js';
import { AtlassianRest } from './atlassian-rest.js';
import { JiraTracker } from './jira-tracker.js';

describe('JiraTracker against the fake Jira (REST v3, Basic auth)', () => {
  let jira: FakeJira;
  let waits: number[];

  const tracker = (token: string | null = 'api-token'): JiraTracker =>
    new JiraTracker(
      new AtlassianRest({
        service: 'Jira',
        baseUrl: jira.origin,
        email: 'caravel@acme.test',
        apiToken: token ?? undefined,
        settings: 'JIRA_BASE_URL, JIRA_EMAIL and JIRA_API_TOKEN',
        retry: { sleep: (ms) => Promise.resolve(void waits.push(ms)) },
      }),
      'https://acme.atlassian.net/',
    );

  beforeEach(async () => {
    waits = [];
    jira = new FakeJira()
      .addAccount('caravel@acme.test', 'api-token')
      .addProject('PROJ', 'Project');
    await jira.listen();
  });

  afterEach(() => jira.close());

  it('creates an issue from markdown (stored as ADF), reads it back as markdown, and updates it', async () => {
    const created = await tracker().createIssue({
      container: 'PROJ',
      title: 'Flaky test',
      description: 'Fails on **CI** only',
    });

    expect(created).toMatchObject({
      key: 'PROJ-1',
      description: 'Fails on **CI** only',
      status: 'To Do',
      url: 'https://acme.atlassian.net/browse/PROJ-1',
    });
    expect(jira.issues[0]?.description).toEqual(markdownToAdf('Fails on **CI** only'));
    await expect(tracker().updateIssue('PROJ-1', { title: 'Flaky spec' })).resolves.toMatchObject({
      title: 'Flaky spec',
    });
    await expect(tracker().listContainers()).resolves.toEqual([
      expect.objectContaining({ key: 'PROJ' }),
    ]);
  });

  it('comments once per idempotency key (a comment property) and reads comments with authors', async () => {
    await tracker().createIssue({ container: 'PROJ', title: 't' });
    jira.seedComment('PROJ-1', markdownToAdf('Please add a test'), 'ann@acme.test');

    const first = await tracker().commentOnce('PROJ-1', 'Done', 'reply:run-1');
    const again = await tracker().commentOnce('PROJ-1', 'Done', 'reply:run-1');
    const comments = await tracker().getComments('PROJ-1', 10);

    expect(again).toEqual(first);
    expect(comments.map((c) => [c.author, c.text])).toEqual([
      ['ann@acme.test', 'Please add a test'],
      ['caravel@acme.test', 'Done'],
    ]);
  });

  it('reads one comment back by id: its real author and its ADF body as markdown', async () => {
    await tracker().createIssue({ container: 'PROJ', title: 'one' });
    await tracker().createIssue({ container: 'PROJ', title: 'two' });
    const seeded = jira.addComment('PROJ-1', {
      body: markdownToAdf('Please **fix** the build'),
      author: { accountId: 'acc-ana', displayName: 'Ana' },
    });

    await expect(tracker().getComment('PROJ-1', seeded.id)).resolves.toEqual({
      id: seeded.id,
      author: { accountId: 'acc-ana', displayName: 'Ana' },
      markdown: 'Please **fix** the build',
    });
    await expect(tracker().getComment('PROJ-2', seeded.id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining(`read comment ${seeded.id} of PROJ-2`),
    });
  });

  it('codes bad credentials, missing issues and refusals', async () => {
    await expect(tracker('wrong').getIssue('PROJ-1')).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    await expect(tracker().getIssue('PROJ-404')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('Issue does not exist'),
    });
    jira.failNext({}, { status: 403, body: { errorMessages: ['You do not have permission'] } });
    await expect(tracker().listContainers()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(tracker().createIssue({ container: 'NOPE', title: 't' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('project: valid project is required'),
    });
  });

  it('waits out a short 429 once and reports a long one', async () => {
    jira.failNext({}, rateLimited(1, { errorMessages: ['Rate limit exceeded'] }));
    await expect(tracker().listContainers()).resolves.toHaveLength(1);
    expect(waits).toEqual([1000]);
    jira.failNext({}, { ...rateLimited(900, {}), times: 2 });
    await expect(tracker().listContainers()).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { retryAfterSeconds: 900 },
    });
  });

  it('fails cleanly without credentials', async () => {
    await expect(tracker(null).listContainers()).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message:
        'Jira is not configured: set JIRA_BASE_URL, JIRA_EMAIL and JIRA_API_TOKEN to use it.',
    });
    expect(jira.calls).toEqual([]);
  });
});
