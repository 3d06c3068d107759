import { jest } from '@jest/globals';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { StartRunV1, type EnvelopeOf } from '@caravel/contracts';
import type { SlackMessageRepository, UserTokenRepository } from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import { parseKeyring, TokenCipher } from '@caravel/integrations';
import { FakeConfluence, FakeGitHub, FakeSlack } from '@caravel/testing';
import { strictMock } from '@caravel/testing/doubles';
import { Logger } from '@nestjs/common';
import { agentRunnerConfigFrom } from '../agent-runner.config.js';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { GitScm } from '../scm/git.scm.js';
import { GitHubScm } from '../scm/github.scm.js';
import { scmForRun } from '../scm/run-scm.js';
import { RunIntegrationsService, runnerIntegrations } from './run-integrations.service.js';

type StartRun = EnvelopeOf<typeof StartRunV1>['data'];

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
/** Nothing of the workspace is touched by the pull-request half of an SCM. */
const workspace = Object.freeze({}) as ThreadWorkspace;
/** No keyring is configured, so the vault (and this repository) is never used. */
const noUserTokens = strictMock<UserTokenRepository>({}, 'userTokens');
/** Nothing here schedules a wakeup, so the bus is never asked. */
const noBus = strictMock<Bus>({}, 'bus');

const run = (overrides: Partial<StartRun>): StartRun => ({
  ...StartRunV1.fixture().data,
  repository: { owner: 'acme', name: 'widgets' },
  source: 'github',
  replyTo: { issue: 7, commentId: 1 },
  ...overrides,
});

describe('RunIntegrationsService', () => {
  let github: FakeGitHub;

  beforeEach(async () => {
    github = new FakeGitHub({ app: { id: '42', publicKey } }).addRepository('acme/widgets');
    await github.start();
  });

  afterEach(() => github.close());

  /** The service as the runner's module builds it, from the environment its config parses. */
  const serviceOf = (
    env: Record<string, string>,
    slackMessages?: SlackMessageRepository,
  ): RunIntegrationsService => {
    const config = agentRunnerConfigFrom(env);
    const adapters = runnerIntegrations(config, noUserTokens);
    return new RunIntegrationsService(config, adapters, noBus, slackMessages);
  };
  const service = (env: Record<string, string> = {}): RunIntegrationsService =>
    serviceOf({
      GITHUB_APP_ID: '42',
      GITHUB_APP_PRIVATE_KEY: PEM.replace(/\n/g, '\\n'),
      GITHUB_API_URL: github.origin,
      GITHUB_HOST: github.origin,
      ...env,
    });

  it('answers a GitHub thread on its issue, once per run and text, with an installation token', async () => {
    const channel = service().replyChannel(run({}));
    const first = await channel.reply('Opened a draft PR.');
    const again = await channel.reply('Opened a draft PR.');

    expect(again).toEqual(first);
    const comments = github.state.issueComments.get('acme/widgets#7') ?? [];
    expect(comments.map((c) => c.body)).toEqual([expect.stringContaining('Opened a draft PR.')]);
    expect(github.minted.length).toBeGreaterThan(0);
  });

  it('acts on GitHub as the person who asked when the vault holds their token, else as the App', async () => {
    github.addUserToken('gho_octo', 'octocat');
    const keyring = `k1:${randomBytes(32).toString('base64')}`;
    const sealed = new TokenCipher(parseKeyring(keyring)).encrypt(
      'gho_octo',
      'github|octocat|access',
    );
    const userTokens = strictMock<UserTokenRepository>(
      {
        find: (provider, subject, kind) =>
          Promise.resolve(
            subject === 'octocat'
              ? {
                  id: 't1',
                  provider,
                  subject,
                  kind,
                  ...sealed,
                  expiresAt: null,
                  updatedAt: new Date(),
                }
              : null,
          ),
      },
      'userTokens',
    );
    const config = agentRunnerConfigFrom({
      GITHUB_APP_ID: '42',
      GITHUB_APP_PRIVATE_KEY: PEM.replace(/\n/g, '\\n'),
      GITHUB_API_URL: github.origin,
      GITHUB_HOST: github.origin,
      CARAVEL_TOKEN_KEYS: keyring,
    });
    const withVault = new RunIntegrationsService(
      config,
      runnerIntegrations(config, userTokens),
      noBus,
    );

    await withVault.replyChannel(run({})).reply('Mine.');
    await withVault
      .replyChannel(run({ requestedBy: { externalId: 'stranger' } }))
      .reply('The App.');

    const comments = github.state.issueComments.get('acme/widgets#7') ?? [];
    expect(comments.map((c) => c.user.login)).toEqual(['octocat', 'caravel[bot]']);
  });

  it('comments with GITHUB_TOKEN when no App is set (development), and still opens no pull request', async () => {
    github.addUserToken('ghp_dev', 'developer');
    const dev = serviceOf({
      GITHUB_API_URL: github.origin,
      GITHUB_HOST: github.origin,
      GITHUB_TOKEN: 'ghp_dev',
    });

    await dev.replyChannel(run({})).reply('From a laptop.');

    const comments = github.state.issueComments.get('acme/widgets#7') ?? [];
    expect(comments.map((c) => c.user.login)).toEqual(['developer']);
    expect(dev.pullRequestHost(run({}))).toBeNull();
  });

  it('opens draft pull requests on GitHub for a repository on the configured GitHub', async () => {
    const scm = scmForRun(workspace, service().pullRequestHost(run({})));
    expect(scm).toBeInstanceOf(GitHubScm);

    const pull = await scm.openPullRequest({ branch: 'caravel/abc', title: 'T', body: 'B' });

    expect(pull).toMatchObject({ draft: true, number: expect.any(Number) });
    expect(github.state.pulls.get('acme/widgets')).toEqual([
      expect.objectContaining({ head: 'caravel/abc', title: 'T' }),
    ]);
  });

  it('keeps a plain pushed branch for a repository cloned from a path or another host', () => {
    const local = run({ repository: { owner: 'acme', name: 'w', cloneUrl: '/srv/git/w.git' } });
    const elsewhere = run({
      repository: { owner: 'acme', name: 'w', cloneUrl: 'https://git.example.org/acme/w.git' },
    });

    expect(service().pullRequestHost(local)).toBeNull();
    expect(service().pullRequestHost(elsewhere)).toBeNull();
    expect(scmForRun(workspace, null)).toBeInstanceOf(GitScm);
  });

  it('without the App, logs GitHub replies and pushes a plain branch instead of failing', async () => {
    const bare = serviceOf({ GITHUB_API_URL: github.origin, GITHUB_HOST: github.origin });

    await expect(bare.replyChannel(run({})).reply('hello')).resolves.toHaveProperty('messageId');
    expect(bare.pullRequestHost(run({}))).toBeNull();
    expect(github.calls).toHaveLength(0);
  });

  it('says once per process that the GitHub App is not set, however often runs ask for GitHub', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const bare = serviceOf({ GITHUB_API_URL: github.origin, GITHUB_HOST: github.origin });
      const first = run({});
      const second = run({ threadId: '7d1e0c44-3b9a-5f2e-8c61-0a9b8c7d6e5f' });

      for (const each of [first, first, second]) {
        expect(bare.pullRequestHost(each)).toBeNull();
        bare.channelPorts(each);
      }

      const said = `thread ${first.threadId}: GITHUB_APP_ID/GITHUB_APP_PRIVATE_KEY unset, so no pull request can be opened on acme/widgets`;
      expect(warn.mock.calls).toEqual([[said]]);
    } finally {
      warn.mockRestore();
    }
  });

  it('gives Slack tools to Slack threads only, and request_pr_review to GitHub repositories', () => {
    const slackRun = run({
      source: 'slack',
      replyTo: { channel: 'C1', threadTs: '1.0' },
      repository: { owner: 'acme', name: 'widgets' },
    });
    const ports = service().channelPorts(slackRun);
    expect(ports.slack).toBeDefined();
    expect(ports.reviews).toBeDefined();
    expect(ports.linear).toBeUndefined();

    const githubPorts = service({ LINEAR_API_KEY: 'lin_api_x' }).channelPorts(run({}));
    expect(githubPorts.slack).toBeUndefined();
    expect(githubPorts.linear).toBeDefined();
  });

  it('answers a Slack thread in the thread, and says which setting is missing without a token', async () => {
    const slack = new FakeSlack().addToken('xoxb-test');
    await slack.listen();
    try {
      const root = slack.seed('C1', 'please help', 'U1');
      const thread = { source: 'slack' as const, replyTo: { channel: 'C1', threadTs: root } };
      const configured = service({ SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: slack.apiUrl });
      await configured.replyChannel(run(thread)).reply('On it.');
      expect(slack.messages).toEqual([
        expect.objectContaining({ text: 'please help' }),
        expect.objectContaining({ channel: 'C1', thread_ts: root, text: 'On it.' }),
      ]);

      await expect(service().replyChannel(run(thread)).reply('On it.')).rejects.toMatchObject({
        code: 'PRECONDITION_FAILED',
        message: expect.stringContaining('SLACK_BOT_TOKEN'),
      });
    } finally {
      await slack.close();
    }
  });

  it("records Caravel's replies and its Slack tools' posts in the Slack message map, so a ❌ on one finds the thread", async () => {
    const slack = new FakeSlack().addToken('xoxb-test');
    await slack.listen();
    const recorded: object[] = [];
    let broken = false;
    const slackMessages = strictMock<SlackMessageRepository>(
      {
        record: (message) => {
          if (broken) return Promise.reject(new Error('database down'));
          recorded.push(message);
          return Promise.resolve(message.threadId);
        },
      },
      'slackMessages',
    );
    try {
      const root = slack.seed('C1', 'please help', 'U1');
      const slackRun = run({
        source: 'slack',
        replyTo: { team: 'T1', channel: 'C1', threadTs: root, messageTs: root },
      });
      const env = { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: slack.apiUrl };
      const configured = serviceOf(env, slackMessages);

      const reply = await configured.replyChannel(slackRun).reply('On it.');
      const posted = await configured.channelPorts(slackRun).slack?.replyInThread('Half done.');
      const own = slack.messages.filter((m) => m.text !== 'please help').map((m) => m.ts);

      expect(own).toEqual([reply.messageId, posted?.ts]);
      expect(recorded).toEqual(
        own.map((ts) => ({ team: 'T1', channel: 'C1', ts, threadId: slackRun.threadId })),
      );

      // Written after the post: a map that fails is logged, and the reply stands.
      broken = true;
      await expect(configured.replyChannel(slackRun).reply('Done.')).resolves.toMatchObject({
        messageId: expect.any(String),
      });
      // A Slack thread whose trigger did not name its workspace cannot be mapped.
      const noTeam = run({ source: 'slack', replyTo: { channel: 'C1', threadTs: root } });
      broken = false;
      await configured.replyChannel(noTeam).reply('Also done.');
      expect(recorded).toHaveLength(2);
    } finally {
      await slack.close();
    }
  });

  it("answers a Confluence thread under its comment on the tenant's site, and gives it the wiki tools there", async () => {
    const confluence = new FakeConfluence().addAccount('svc@acme.test', 'conf-token');
    await confluence.listen();
    try {
      const { page, comment: ask, replyTo } = confluence.addAsk('<p>@caravel fix it</p>');
      const confluenceRun = run({ source: 'confluence', replyTo });
      const configured = service({
        CONFLUENCE_EMAIL: 'svc@acme.test',
        CONFLUENCE_API_TOKEN: 'conf-token',
      });

      await configured.replyChannel(confluenceRun).reply('Opened a draft PR.');
      const ports = configured.channelPorts(confluenceRun);

      expect(confluence.repliesTo(ask.id).map((c) => c.storage)).toEqual([
        '<p>Opened a draft PR.</p>',
      ]);
      await expect(ports.confluence?.getPage(page.id)).resolves.toMatchObject({
        title: 'Runbook',
      });
      expect(configured.channelPorts(run({})).confluence).toBeUndefined();
    } finally {
      await confluence.close();
    }
  });

  it("binds Slack's assistant status to Slack threads only", async () => {
    const slack = new FakeSlack().addToken('xoxb-test');
    await slack.listen();
    try {
      const root = slack.seed('C1', 'please help', 'U1');
      const slackRun = run({ source: 'slack', replyTo: { channel: 'C1', threadTs: root } });
      const configured = service({ SLACK_BOT_TOKEN: 'xoxb-test', SLACK_API_URL: slack.apiUrl });

      await configured.assistantStatus(slackRun).assistantStatus?.setStatus('is working…');

      expect(slack.statuses).toEqual([
        { channel_id: 'C1', thread_ts: root, status: 'is working…' },
      ]);
      expect(configured.assistantStatus(run({}))).toEqual({});
    } finally {
      await slack.close();
    }
  });
});
