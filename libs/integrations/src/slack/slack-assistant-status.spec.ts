import { FakeSlack } from '@caravel/testing';
import { SlackApi } from './slack-api.js';
import { SlackAssistantStatus } from './slack-assistant-status.js';

const TOKEN = 'xoxb-status-token';

describe('SlackAssistantStatus against the fake Slack with the real WebClient', () => {
  let slack: FakeSlack;
  let root: string;

  const status = (threadTs: string, token: string | null = TOKEN) =>
    new SlackAssistantStatus(new SlackApi({ botToken: token ?? undefined, apiUrl: slack.apiUrl }), {
      channel: 'C7',
      threadTs,
    });

  beforeEach(async () => {
    slack = new FakeSlack().addToken(TOKEN);
    await slack.listen();
    root = slack.seed('C7', '@caravel fix the flaky test', 'UANN');
  });

  afterEach(() => slack.close());

  it('sets the status of the thread through assistant.threads.setStatus and clears it with an empty one', async () => {
    await status(root).setStatus('is working…');
    await status(root).clearStatus();

    expect(slack.statuses).toEqual([
      { channel_id: 'C7', thread_ts: root, status: 'is working…' },
      { channel_id: 'C7', thread_ts: root, status: '' },
    ]);
    expect(slack.callsTo({ path: '/api/assistant.threads.setStatus' })).toHaveLength(2);
  });

  it("fails with Slack's error coded, and cleanly without a token", async () => {
    await expect(status('1.000001').setStatus('is working…')).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      details: { reason: 'invalid_thread_ts' },
    });
    await expect(status(root, null).setStatus('is working…')).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    expect(slack.statuses).toEqual([]);
  });
});
