import { FakeConfluence, FakeGitHub, FakeLinear, FakeSlack } from '@caravel/testing';
import { IntegrationAdapters } from '../adapters/integration-adapters.js';

describe('SourceReplyChannel (the runner reply, posted where the thread came from, once)', () => {
  let github: FakeGitHub;
  let slack: FakeSlack;
  let linear: FakeLinear;
  let confluence: FakeConfluence;
  let adapters: IntegrationAdapters;

  beforeEach(async () => {
    github = new FakeGitHub().addRepository('acme/widgets').addUserToken('gho_t', 'caravel[bot]');
    slack = new FakeSlack().addToken('xoxb-t');
    linear = new FakeLinear().addApiKey('lin_t').addTeam({ id: 'team', key: 'ENG', name: 'Eng' });
    confluence = new FakeConfluence().addAccount('svc@acme.test', 'conf_t');
    await Promise.all([github.start(), slack.listen(), linear.listen(), confluence.listen()]);
    adapters = new IntegrationAdapters({
      github: { apiUrl: github.origin, webUrl: github.origin, developmentToken: 'gho_t' },
      slack: { botToken: 'xoxb-t', apiUrl: slack.apiUrl },
      linear: { apiKey: 'lin_t', apiUrl: linear.apiUrl },
      jira: {},
      confluence: { email: 'svc@acme.test', apiToken: 'conf_t' },
    });
  });

  afterEach(() => Promise.all([github.close(), slack.close(), linear.close(), confluence.close()]));

  it('answers on the pull request, and a repeated reply of the same run posts nothing new', async () => {
    const thread = {
      source: 'github',
      replyTo: { pullRequest: 12, commentId: 99 },
      repository: { owner: 'acme', name: 'widgets' },
    };
    const first = await adapters.replyChannel(thread, 'run-1').reply('Opened #13');
    const again = await adapters.replyChannel(thread, 'run-1').reply('Opened #13');
    await adapters.replyChannel(thread, 'run-2').reply('Opened #13');

    expect(again).toEqual(first);
    expect(github.state.issueComments.get('acme/widgets#12')).toHaveLength(2);
  });

  it('answers in the Slack thread, once per run and text', async () => {
    const root = slack.seed('C9', '@caravel help', 'UANN');
    const thread = { source: 'slack', replyTo: { team: 'T1', channel: 'C9', threadTs: root } };
    await adapters.replyChannel(thread, 'run-1').reply('Done');
    await adapters.replyChannel(thread, 'run-1').reply('Done');

    expect(slack.messages.filter((m) => m.text === 'Done')).toEqual([
      expect.objectContaining({ channel: 'C9', thread_ts: root }),
    ]);
  });

  it('answers on the Linear issue', async () => {
    const issue = linear.addIssue({
      teamId: 'team',
      title: 't',
      description: '',
      priority: 0,
      state: 'Todo',
    });
    const thread = { source: 'linear', replyTo: { issueId: issue.id } };
    await adapters.replyChannel(thread, 'run-1').reply('Working on it');

    expect(linear.comments.map((c) => c.body.split('\n')[0])).toEqual(['Working on it']);
  });

  it('answers under the Confluence comment that asked, on its site, once per run and text', async () => {
    const { comment: ask, replyTo } = confluence.addAsk('<p>@caravel update the runbook</p>');
    const thread = { source: 'confluence', replyTo };
    await adapters.replyChannel(thread, 'run-1').reply('Opened **#7**');
    await adapters.replyChannel(thread, 'run-1').reply('Opened **#7**');

    expect(confluence.repliesTo(ask.id).map((c) => c.storage)).toEqual([
      '<p>Opened <strong>#7</strong></p>',
    ]);
  });

  it('refuses a thread it cannot answer with a coded error naming what is missing', () => {
    expect(() => adapters.replyChannel({ source: 'synthetic', replyTo: {} }, 'r')).toThrow(
      'cannot reply: source synthetic has no channel to answer in',
    );
    expect(() =>
      adapters.replyChannel({ source: 'jira', replyTo: { issueKey: 'P-1' } }, 'r'),
    ).toThrow('a Jira reply needs the Jira adapter');
    expect(() =>
      adapters.replyChannel({ source: 'confluence', replyTo: { pageId: '1' } }, 'r'),
    ).toThrow('a Confluence reply needs the Confluence adapter, a site and a page id');
  });
});
