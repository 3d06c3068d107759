import { generateKeyPairSync } from 'node:crypto';
import { FakeGitHub, FakeSlack } from '@caravel/testing';
import { strictMock } from '@caravel/testing/doubles';
import type { StoredToken, TokenAddress } from '../crypto/user-token-vault.js';
import type { UserTokenReader } from '../github/github-credentials.js';
import { githubAppSettingsSchema } from '../settings/integration.settings.js';
import { IntegrationAdapters } from './integration-adapters.js';
import { integrationsConfigOf, type IntegrationsConfig } from './integrations.config.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const WIDGETS = { owner: 'acme', name: 'widgets' };
const ISSUE_THREAD = { source: 'github', replyTo: { issue: 7 }, repository: WIDGETS };

describe('IntegrationAdapters (one factory, one GitHub credential model)', () => {
  let github: FakeGitHub;

  beforeEach(async () => {
    github = new FakeGitHub({ app: { id: '42', publicKey } })
      .addRepository('acme/widgets')
      .addUserToken('ghp_dev', 'developer')
      .addUserToken('gho_octo', 'octocat');
    await github.start();
  });

  afterEach(() => github.close());

  const config = (
    githubSlice: Partial<IntegrationsConfig['github']> = {},
    rest: Partial<Omit<IntegrationsConfig, 'github'>> = {},
  ): IntegrationsConfig => ({
    github: { apiUrl: github.origin, webUrl: github.origin, ...githubSlice },
    slack: {},
    linear: {},
    jira: {},
    confluence: {},
    ...rest,
  });
  const app = { app: { id: '42', privateKey: PEM } };

  /** The logins the issue's comments were posted as (whose token reached the fake). */
  const commenters = () =>
    (github.state.issueComments.get('acme/widgets#7') ?? []).map((c) => c.user.login);

  /** The vault as a strict double: only `read`, answering one person's token. */
  const vault = (login: string, token: string): UserTokenReader =>
    strictMock<UserTokenReader>(
      {
        read: (address: TokenAddress): Promise<StoredToken | null> =>
          Promise.resolve(
            address.provider === 'github' && address.subject === login
              ? { token, expiresAt: null }
              : null,
          ),
      },
      'vault',
    );

  it("replies on GitHub with the App's installation token, even when a development token is set", async () => {
    const adapters = new IntegrationAdapters(config({ ...app, developmentToken: 'ghp_dev' }));

    await adapters.replyChannel(ISSUE_THREAD, 'run-1').reply('It failed.');

    expect(commenters()).toEqual(['caravel[bot]']);
    expect(github.minted).toHaveLength(1);
    expect(github.accepted).not.toContain('ghp_dev');
  });

  it('replies as the person when the vault holds their token, and as the App for anyone else', async () => {
    const adapters = new IntegrationAdapters(config(app), { users: vault('octocat', 'gho_octo') });

    await adapters.replyChannel(ISSUE_THREAD, 'run-1', { actingFor: 'OctoCat' }).reply('Mine.');
    await adapters.replyChannel(ISSUE_THREAD, 'run-1', { actingFor: 'stranger' }).reply('App.');
    await adapters.replyChannel(ISSUE_THREAD, 'run-1').reply('Also the App.');

    expect(commenters()).toEqual(['octocat', 'caravel[bot]', 'caravel[bot]']);
  });

  it('opens pull requests with the same credentials: the person first, then the App', async () => {
    const adapters = new IntegrationAdapters(config(app), { users: vault('octocat', 'gho_octo') });

    await adapters
      .codeHost(WIDGETS, 'octocat')
      ?.openPullRequest({ branch: 'caravel/a', title: 'T', body: 'B' });
    await adapters.codeHost(WIDGETS)?.comment(7, 'From the App.', 'k-1');

    expect(github.state.pulls.get('acme/widgets')).toHaveLength(1);
    expect(github.accepted[0]).toBe('gho_octo');
    expect(commenters()).toEqual(['caravel[bot]']);
  });

  it('without the App, comments with the development token but opens no pull request and checks no membership', async () => {
    const adapters = new IntegrationAdapters(config({ developmentToken: 'ghp_dev' }));

    await adapters.replyChannel(ISSUE_THREAD, 'run-1').reply('Dev reply.');

    expect(commenters()).toEqual(['developer']);
    expect(adapters.configured('github')).toBe(true);
    expect(adapters.codeHost(WIDGETS)).toBeNull();
    expect(adapters.orgMembership()).toBeNull();
  });

  it('without any GitHub credential, refuses a GitHub reply up front and calls nothing', () => {
    const adapters = new IntegrationAdapters(config());

    for (const unconfigured of ['refuse', 'fail-on-post'] as const) {
      expect(() => adapters.replyChannel(ISSUE_THREAD, 'run-1', { unconfigured })).toThrow(
        expect.objectContaining({ code: 'PRECONDITION_FAILED' }) as Error,
      );
    }
    expect(adapters.configured('github')).toBe(false);
    expect(github.calls).toHaveLength(0);
  });

  it('gives a code host only for repositories on the configured GitHub', () => {
    const adapters = new IntegrationAdapters(config(app));

    expect(
      adapters.codeHost({ ...WIDGETS, cloneUrl: `${github.origin}/acme/widgets.git` }),
    ).not.toBeNull();
    expect(adapters.codeHost({ ...WIDGETS, cloneUrl: '/srv/git/widgets.git' })).toBeNull();
    expect(adapters.codeHost(undefined)).toBeNull();
  });

  it('reviews as the person, else as the App, else with the development token, and not at all without credentials', async () => {
    const pr = { repository: { owner: 'acme', name: 'widgets' }, number: 7 };
    const review = {
      commit_id: 'a'.repeat(40),
      event: 'COMMENT' as const,
      body: 'R',
      comments: [],
    };
    const withApp = new IntegrationAdapters(config(app), { users: vault('octocat', 'gho_octo') });
    const devOnly = new IntegrationAdapters(config({ developmentToken: 'ghp_dev' }));

    await withApp.reviews(WIDGETS, 'octocat')?.createReview(pr, review);
    await withApp.reviews(WIDGETS)?.createReview(pr, review);
    await devOnly.reviews(WIDGETS)?.createReview(pr, review);

    const reviewers = (github.reviews.reviews.get('acme/widgets#7') ?? []).map((r) => r.user.login);
    expect(reviewers).toEqual(['octocat', 'caravel[bot]', 'developer']);
    expect(withApp.reviews({ ...WIDGETS, cloneUrl: '/srv/git/widgets.git' })).toBeNull();
    expect(new IntegrationAdapters(config()).reviews(WIDGETS)).toBeNull();
  });

  it('asks organization membership as the App', async () => {
    github.addOrgMember('acme', 'octocat');
    const membership = new IntegrationAdapters(config(app)).orgMembership();

    await expect(membership?.isMember('acme', 'octocat', WIDGETS)).resolves.toBe(true);
    await expect(membership?.isMember('acme', 'mallory', WIDGETS)).resolves.toBe(false);
    expect(github.minted.length).toBeGreaterThan(0);
  });

  it("reads a person's role on a repository as the App: the owner's, a collaborator's, none", async () => {
    github.collaborators.add('acme/widgets', 'ada');
    const access = new IntegrationAdapters(config(app)).repositoryAccess();

    await expect(access?.permissionOf('acme', WIDGETS)).resolves.toBe('admin');
    await expect(access?.permissionOf('ada', WIDGETS)).resolves.toBe('write');
    await expect(access?.permissionOf('mallory', WIDGETS)).resolves.toBe('none');
    expect(new IntegrationAdapters(config()).repositoryAccess()).toBeNull();
  });

  describe('chat and trackers', () => {
    let slack: FakeSlack;

    beforeEach(async () => {
      slack = new FakeSlack().addToken('xoxb-bot');
      await slack.listen();
    });

    afterEach(() => slack.close());

    it('replies in a Slack thread with the bot token, and refuses or defers a source without credentials as asked', async () => {
      const root = slack.seed('C1', 'please help', 'U1');
      const thread = { source: 'slack', replyTo: { channel: 'C1', threadTs: root } };
      const slackSlice = { slack: { botToken: 'xoxb-bot', apiUrl: slack.apiUrl } };

      await new IntegrationAdapters(config({}, slackSlice))
        .replyChannel(thread, 'r')
        .reply('On it.');
      expect(slack.messages.map((m) => m.text)).toEqual(['please help', 'On it.']);

      const bare = new IntegrationAdapters(config({}, { slack: { apiUrl: slack.apiUrl } }));
      expect(() => bare.replyChannel(thread, 'r')).toThrow('a Slack reply needs the Slack adapter');
      const deferred = bare.replyChannel(thread, 'r', { unconfigured: 'fail-on-post' });
      await expect(deferred.reply('On it.')).rejects.toMatchObject({
        code: 'PRECONDITION_FAILED',
        message: expect.stringContaining('SLACK_BOT_TOKEN'),
      });
      expect(slack.messages).toHaveLength(2);
    });

    it('says which trackers are configured, and an unconfigured one fails naming its settings', async () => {
      const adapters = new IntegrationAdapters(
        config(
          {},
          { linear: { apiKey: 'lin_x' }, jira: { baseUrl: 'https://acme.atlassian.net' } },
        ),
      );

      expect(adapters.configured('linear')).toBe(true);
      expect(adapters.configured('jira')).toBe(false);
      await expect(adapters.tracker('jira').getIssue('ENG-1')).rejects.toMatchObject({
        code: 'PRECONDITION_FAILED',
        message: expect.stringContaining('JIRA_EMAIL'),
      });
    });
  });
});

describe('integrationsConfigOf (the environment, once, as typed slices)', () => {
  it('maps the keys that are set, the App only when both halves are', () => {
    const github = githubAppSettingsSchema.parse({
      GITHUB_APP_ID: '42',
      GITHUB_APP_PRIVATE_KEY: PEM.replace(/\n/g, '\\n'),
      GITHUB_API_URL: 'https://ghe.example/api/v3/',
    });

    expect(
      integrationsConfigOf({ ...github, GITHUB_TOKEN: 'ghp_dev', SLACK_BOT_TOKEN: 'x' }),
    ).toEqual({
      github: {
        apiUrl: 'https://ghe.example/api/v3',
        webUrl: 'https://github.com',
        app: { id: '42', privateKey: PEM },
        developmentToken: 'ghp_dev',
      },
      slack: { botToken: 'x' },
      linear: {},
      jira: {},
      confluence: {},
    });
    expect(integrationsConfigOf({ ...github, GITHUB_APP_PRIVATE_KEY: undefined }).github).toEqual({
      apiUrl: 'https://ghe.example/api/v3',
      webUrl: 'https://github.com',
    });
  });
});
