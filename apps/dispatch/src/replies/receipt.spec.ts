import { IntegrationAdapters, type IntegrationsConfig } from '@caravel/integrations';
import { FakeGitHub, FakeLinear, FakeSlack } from '@caravel/testing';
import { generateKeyPairSync } from 'node:crypto';
import { SourceReplyPort } from './source-reply.port.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const repository = { owner: 'acme', name: 'widgets' };

// 👀 on the message that started a run, through dispatch's reply port, against the fake SaaS
// servers speaking the real wire formats (Octokit, @slack/web-api and @linear/sdk unmodified).
describe("dispatch's receipts (👀 on the message that asked)", () => {
  let github: FakeGitHub;
  let slack: FakeSlack;
  let linear: FakeLinear;
  let warnings: string[];

  beforeEach(async () => {
    github = new FakeGitHub({ app: { id: '42', publicKey } }).addRepository('acme/widgets');
    slack = new FakeSlack().addToken('xoxb-test');
    linear = new FakeLinear().addApiKey('lin-key');
    await Promise.all([github.start(), slack.listen(), linear.listen()]);
    warnings = [];
  });

  afterEach(() => Promise.all([github.close(), slack.close(), linear.close()]));

  function port(configured = true): SourceReplyPort {
    const config: IntegrationsConfig = {
      github: {
        apiUrl: github.origin,
        webUrl: github.origin,
        ...(configured ? { app: { id: '42', privateKey: PEM } } : {}),
      },
      slack: { apiUrl: slack.apiUrl, ...(configured ? { botToken: 'xoxb-test' } : {}) },
      linear: { apiUrl: linear.apiUrl, ...(configured ? { apiKey: 'lin-key' } : {}) },
      jira: {},
      confluence: {},
    };
    return new SourceReplyPort(new IntegrationAdapters(config), {
      warn: (m) => void warnings.push(m),
    });
  }

  it('reacts to a GitHub comment and a review comment as the App, once however often asked', async () => {
    const comment = { source: 'github' as const, replyTo: { issue: 7, commentId: 31 }, repository };
    const review = {
      source: 'github' as const,
      replyTo: { pullRequest: 8, reviewCommentId: 32 },
      repository,
    };
    expect(await port().acknowledge(comment)).toBe('posted');
    expect(await port().acknowledge(comment)).toBe('posted');
    expect(await port().acknowledge(review)).toBe('posted');

    expect(github.state.reactions).toEqual([
      { subject: 'acme/widgets:issues-comment:31', content: 'eyes', login: 'caravel[bot]' },
      { subject: 'acme/widgets:pulls-comment:32', content: 'eyes', login: 'caravel[bot]' },
    ]);
  });

  it('reacts to the Slack message that asked, not only the thread root', async () => {
    const root = slack.seed('C1', 'a thread', 'U1');
    const asked = slack.seed('C1', '<@UBOT> fix it', 'U2', root);
    const destination = {
      source: 'slack' as const,
      replyTo: { channel: 'C1', threadTs: root, messageTs: asked },
    };
    expect(await port().acknowledge(destination)).toBe('posted');
    expect(await port().acknowledge(destination)).toBe('posted');

    const reactions = (ts: string) => slack.messages.find((m) => m.ts === ts)?.reactions;
    expect(reactions(asked)).toEqual([{ name: 'eyes', users: ['UBOT'] }]);
    expect(reactions(root)).toEqual([]);
  });

  it('reacts to the Linear comment that asked', async () => {
    linear.addTeam({ id: 'team-1', key: 'ENG', name: 'Engineering' });
    const issue = linear.addIssue({
      teamId: 'team-1',
      title: 'T',
      description: '',
      priority: 0,
      state: 'Todo',
    });
    linear.addComment(issue.id, '@caravel fix it', { name: 'Ann', email: 'ann@acme.test' });
    const commentId = linear.comments[0]!.id;
    const destination = { source: 'linear' as const, replyTo: { issueId: issue.id, commentId } };

    expect(await port().acknowledge(destination)).toBe('posted');

    expect(linear.reactions).toEqual([{ commentId, emoji: '👀', user: 'caravel@example.com' }]);
  });

  it('says when there is nothing to react to, or no credentials, without calling anyone', async () => {
    const review = {
      source: 'github' as const,
      replyTo: { pullRequest: 8, reviewId: 5 },
      repository,
    };
    expect(await port().acknowledge(review)).toBe('no_channel');
    expect(await port().acknowledge({ source: 'synthetic', replyTo: {} })).toBe('no_channel');
    const slackAsk = { source: 'slack' as const, replyTo: { channel: 'C1', threadTs: '1.0' } };
    expect(await port(false).acknowledge(slackAsk)).toBe('not_configured');
    expect(warnings).toEqual([expect.stringContaining('replies to slack threads are skipped')]);
    expect(github.calls).toHaveLength(0);
    expect(slack.calls).toHaveLength(0);
  });
});
