import { FakeLinear, linearError, rateLimited } from '@caravel/testing';
import { LinearApi } from './linear-api.js';
import { LinearTracker } from './linear-tracker.js';

const KEY = 'lin_api_test';
const TEAM = { id: 'team-1', key: 'ENG', name: 'Engineering' };

describe('LinearTracker against the fake Linear with the real LinearClient', () => {
  let linear: FakeLinear;
  let waits: number[];

  const tracker = (key: string | null = KEY): LinearTracker =>
    new LinearTracker(
      new LinearApi({
        apiKey: key ?? undefined,
        apiUrl: linear.apiUrl,
        retry: { sleep: (ms) => Promise.resolve(void waits.push(ms)) },
      }),
    );

  beforeEach(async () => {
    waits = [];
    linear = new FakeLinear().addApiKey(KEY).addTeam(TEAM);
    await linear.listen();
  });

  afterEach(() => linear.close());

  it('creates, reads, updates, searches and deletes an issue', async () => {
    const created = await tracker().createIssue({
      container: TEAM.id,
      title: 'Flaky parser test',
      description: 'It fails on Tuesdays',
      priority: 2,
    });
    expect(created).toMatchObject({ key: 'ENG-1', title: 'Flaky parser test', status: 'Todo' });

    const updated = await tracker().updateIssue('ENG-1', { title: 'Flaky parser spec' });
    expect(updated.title).toBe('Flaky parser spec');
    await expect(tracker().searchIssues('tuesdays', 5)).resolves.toEqual([updated]);
    await expect(tracker().listContainers()).resolves.toEqual([TEAM]);

    await tracker().deleteIssue(created.id);
    await expect(tracker().getIssue(created.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('comments, reads comments with their authors, and comments once per idempotency key', async () => {
    const issue = linear.addIssue({
      teamId: TEAM.id,
      title: 't',
      description: '',
      priority: 0,
      state: 'Todo',
    });
    linear.addComment(issue.id, 'Please also update the docs', {
      name: 'Ann',
      email: 'ann@acme.test',
    });

    await tracker().comment(issue.identifier, 'Working on it');
    const first = await tracker().commentOnce(issue.id, 'Done', 'reply:run-9');
    const again = await tracker().commentOnce(issue.id, 'Done', 'reply:run-9');
    const comments = await tracker().getComments(issue.id, 10);

    expect(again).toEqual(first);
    expect(comments.map((c) => [c.author, c.text.split('\n')[0]])).toEqual([
      ['ann@acme.test', 'Please also update the docs'],
      ['caravel@example.com', 'Working on it'],
      ['caravel@example.com', 'Done'],
    ]);
  });

  it('codes a bad API key as UNAUTHENTICATED', async () => {
    await expect(tracker('lin_wrong').listContainers()).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
  });

  it('codes a forbidden answer as FORBIDDEN and an unknown team as NOT_FOUND', async () => {
    linear.failNext({}, linearError(403, 'forbidden', 'You cannot access this team'));
    await expect(tracker().listContainers()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(tracker().createIssue({ container: 'nope', title: 't' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('waits out a short rate limit once and surfaces a long one as RATE_LIMITED', async () => {
    const body = linearError(429, 'ratelimited', 'Rate limit exceeded').body;
    linear.failNext({}, rateLimited(2, body));
    await expect(tracker().listContainers()).resolves.toEqual([TEAM]);
    expect(waits).toEqual([2000]);

    linear.failNext({}, { ...rateLimited(3600, body), times: 2 });
    await expect(tracker().listContainers()).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { retryAfterSeconds: 3600 },
    });
  });

  it('fails cleanly without an API key', async () => {
    await expect(tracker(null).getIssue('ENG-1')).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: 'Linear is not configured: set LINEAR_API_KEY to use it.',
    });
    expect(linear.calls).toEqual([]);
  });
});
