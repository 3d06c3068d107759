import { FakeSlack, rateLimited } from '@caravel/testing';
import { SlackApi } from './slack-api.js';
import { SlackThread } from './slack-thread.js';

const TOKEN = 'xoxb-test-token';

describe('SlackThread against the fake Slack with the real WebClient', () => {
  let slack: FakeSlack;
  let waits: number[];
  let root: string;
  let ask: string;

  const thread = (token: string | null = TOKEN): SlackThread =>
    new SlackThread(
      new SlackApi({
        botToken: token ?? undefined,
        apiUrl: slack.apiUrl,
        retry: { sleep: (ms) => Promise.resolve(void waits.push(ms)) },
      }),
      { channel: 'C1', threadTs: root, messageTs: ask },
    );

  beforeEach(async () => {
    waits = [];
    slack = new FakeSlack().addToken(TOKEN, 'UCARAVEL');
    await slack.listen();
    root = slack.seed('C1', 'the build is red', 'UALICE');
    ask = slack.seed('C1', '@caravel please fix it', 'UBOB', root);
  });

  afterEach(() => slack.close());

  it('replies in the thread and reads it back oldest first, bots flagged', async () => {
    const posted = await thread().replyInThread('On it.');
    const messages = await thread().readThread(10);

    expect(messages.map((m) => [m.author, m.text, m.bot ?? false])).toEqual([
      ['UALICE', 'the build is red', false],
      ['UBOB', '@caravel please fix it', false],
      ['UCARAVEL', 'On it.', true],
    ]);
    expect(messages[2]?.id).toBe(posted.ts);
  });

  it('posts once per idempotency key, carried in message metadata', async () => {
    const first = await thread().post('Done.', 'reply:run-1');
    const again = await thread().post('Done.', 'reply:run-1');

    expect(again).toEqual(first);
    expect(slack.messages.filter((m) => m.text === 'Done.')).toHaveLength(1);
    expect(slack.messages.at(-1)?.metadata).toEqual({
      event_type: 'caravel_post',
      event_payload: { idempotency_key: 'reply:run-1' },
    });
  });

  it('reacts to the asking message by default, and a second identical reaction is fine', async () => {
    await thread().addReaction('eyes');
    await thread().addReaction('eyes');

    const asked = slack.messages.find((m) => m.ts === ask);
    expect(asked?.reactions).toEqual([{ name: 'eyes', users: ['UCARAVEL'] }]);
  });

  it('starts a new thread in another channel', async () => {
    slack.addChannel('C2');
    const started = await thread().startThread('C2', 'Heads up');

    expect(started.channel).toBe('C2');
    expect(slack.messages.at(-1)).toMatchObject({
      channel: 'C2',
      ts: started.ts,
      thread_ts: started.ts,
    });
  });

  it('codes an invalid token as UNAUTHENTICATED', async () => {
    await expect(thread('xoxb-wrong').replyInThread('x')).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      details: { reason: 'invalid_auth' },
    });
  });

  it('codes missing scope as FORBIDDEN and an unknown channel as NOT_FOUND', async () => {
    slack.failNext(
      { path: 'chat.postMessage' },
      { status: 200, body: { ok: false, error: 'missing_scope' } },
    );
    await expect(thread().replyInThread('x')).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(thread().startThread('C404', 'x')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { reason: 'channel_not_found' },
    });
  });

  it('waits out a short rate limit once, and reports a long one as RATE_LIMITED', async () => {
    const limited = rateLimited(3, { ok: false, error: 'ratelimited' });
    slack.failNext({ path: 'chat.postMessage' }, limited);
    await expect(thread().replyInThread('after')).resolves.toHaveProperty('ts');
    expect(waits).toEqual([3000]);

    slack.failNext({ path: 'chat.postMessage' }, { ...rateLimited(600, limited.body), times: 2 });
    await expect(thread().replyInThread('later')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { retryAfterSeconds: 600 },
    });
  });

  it('fails cleanly without a bot token, calling nothing', async () => {
    await expect(thread(null).readThread(5)).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: 'Slack is not configured: set SLACK_BOT_TOKEN to use it.',
    });
    expect(slack.calls).toEqual([]);
  });
});
