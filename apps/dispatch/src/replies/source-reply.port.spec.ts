import { generateKeyPairSync } from 'node:crypto';
import type { SlackMessageRepository } from '@caravel/db';
import { FakeConfluence, FakeGitHub, FakeSlack } from '@caravel/testing';
import { strictMock } from '@caravel/testing/doubles';
import { dispatchConfigOf, dispatchEnvSchema } from '../dispatch.config.js';
import { sourceReplyPort } from './source-reply.port.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe("SourceReplyPort (dispatch's replies in the source channel)", () => {
  let confluence: FakeConfluence;
  let github: FakeGitHub;
  let warnings: string[];

  beforeEach(async () => {
    confluence = new FakeConfluence().addAccount('svc@acme.test', 'conf-token');
    github = new FakeGitHub({ app: { id: '42', publicKey } })
      .addRepository('acme/widgets')
      .addUserToken('ghp_dev', 'developer');
    await Promise.all([confluence.listen(), github.start()]);
    warnings = [];
  });

  afterEach(() => Promise.all([confluence.close(), github.close()]));

  /** The port as dispatch's module builds it, from the environment its config parses. */
  const port = (env: Record<string, string> = {}) =>
    sourceReplyPort(dispatchConfigOf(dispatchEnvSchema.parse(env)).integrations, {
      warn: (m) => void warnings.push(m),
    });

  const confluenceEnv = { CONFLUENCE_EMAIL: 'svc@acme.test', CONFLUENCE_API_TOKEN: 'conf-token' };
  const githubEnv = () => ({ GITHUB_API_URL: github.origin, GITHUB_HOST: github.origin });
  const app = { GITHUB_APP_ID: '42', GITHUB_APP_PRIVATE_KEY: PEM.replace(/\n/g, '\\n') };
  const issue = {
    source: 'github' as const,
    replyTo: { issue: 7 },
    repository: { owner: 'acme', name: 'widgets' },
  };
  const commenters = () =>
    (github.state.issueComments.get('acme/widgets#7') ?? []).map((c) => c.user.login);

  it('posts a failure reply under the Confluence comment that asked, once per run and text', async () => {
    const { comment: ask, replyTo } = confluence.addAsk('<p>@caravel fix it</p>');
    const destination = { source: 'confluence' as const, replyTo };

    expect(await port(confluenceEnv).reply(destination, 'run-1', 'It failed.')).toBe('posted');
    expect(await port(confluenceEnv).reply(destination, 'run-1', 'It failed.')).toBe('posted');

    expect(confluence.repliesTo(ask.id).map((c) => c.storage)).toEqual(['<p>It failed.</p>']);
  });

  it("comments on GitHub with the App's installation token, GITHUB_TOKEN set or not", async () => {
    const withApp = port({ ...githubEnv(), ...app, GITHUB_TOKEN: 'ghp_dev' });

    expect(await withApp.reply(issue, 'run-1', 'It failed.')).toBe('posted');

    expect(commenters()).toEqual(['caravel[bot]']);
    expect(github.accepted).not.toContain('ghp_dev');
    expect(github.minted).toHaveLength(1);
  });

  it('comments with GITHUB_TOKEN only as the development fallback, when no App is set', async () => {
    expect(await port({ ...githubEnv(), GITHUB_TOKEN: 'ghp_dev' }).reply(issue, 'r', 'x')).toBe(
      'posted',
    );
    expect(commenters()).toEqual(['developer']);
  });

  it('maps a notice posted in a Slack thread to the thread, so a ❌ on it stops the thread', async () => {
    const slack = new FakeSlack().addToken('xoxb-test');
    await slack.listen();
    const recorded: object[] = [];
    const slackMessages = strictMock<SlackMessageRepository>(
      {
        record: (message) => {
          recorded.push(message);
          return Promise.resolve(message.threadId);
        },
      },
      'slackMessages',
    );
    try {
      const root = slack.seed('C1', 'please help', 'U1');
      const env = { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: slack.apiUrl };
      const slackPort = sourceReplyPort(
        dispatchConfigOf(dispatchEnvSchema.parse(env)).integrations,
        { warn: (m) => void warnings.push(m) },
        slackMessages,
      );
      const replyTo = { team: 'T1', channel: 'C1', threadTs: root };
      const threadId = '3f0c2a1b-7d6e-4f5a-8b9c-0d1e2f3a4b5c';

      expect(await slackPort.reply({ source: 'slack', replyTo, threadId }, 'r', 'Stopped.')).toBe(
        'posted',
      );
      // Without its thread (or its workspace) a notice is posted and not mapped.
      await slackPort.reply({ source: 'slack', replyTo }, 'r', 'Queued.');

      const notices = slack.messages.filter((m) => m.text !== 'please help');
      expect(notices.map((m) => m.text)).toEqual(['Stopped.', 'Queued.']);
      expect(recorded).toEqual([{ team: 'T1', channel: 'C1', ts: notices[0]?.ts, threadId }]);
    } finally {
      await slack.close();
    }
  });

  it('skips a source without credentials with one warning naming it, and synthetic threads', async () => {
    const unconfigured = port(githubEnv());
    const destination = { source: 'confluence' as const, replyTo: { site: 'x', pageId: '1' } };

    expect(await unconfigured.reply(destination, 'run-1', 'a')).toBe('not_configured');
    expect(await unconfigured.reply(destination, 'run-2', 'b')).toBe('not_configured');
    expect(await unconfigured.reply(issue, 'run-3', 'c')).toBe('not_configured');
    expect(await unconfigured.reply({ source: 'synthetic', replyTo: {} }, 'run-4', 'd')).toBe(
      'no_channel',
    );
    expect(warnings).toEqual([
      expect.stringContaining('replies to confluence threads are skipped'),
      expect.stringContaining('replies to github threads are skipped'),
    ]);
    expect(confluence.calls).toHaveLength(0);
    expect(github.calls).toHaveLength(0);
  });
});
