import {
  FakeConfluence,
  FakeJira,
  FakeLinear,
  FakeSlack,
  startFakeOpenAi,
  type FakeLlmServer,
} from '@caravel/testing';
import { expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { FixAgent } from './fix-agent.js';
import { GitHubWorld } from './github-world.js';
import {
  ConnectSigner,
  JiraRuleSender,
  LinearSender,
  SlackSender,
  type Answer,
} from './signed-senders.js';
import { eventually, type RunView } from './walking-skeleton.js';

/**
 * Where each source's request works, each found its own way: the Slack channel's route
 * (`REPOSITORY_ROUTES`), `repo:` in the Linear comment, the Jira rule's `repository`, the team
 * default (`DEFAULT_REPOSITORY`) for Confluence.
 */
export const REPOS = {
  slack: 'acme/slack-app',
  linear: 'acme/linear-app',
  jira: 'acme/jira-app',
  confluence: 'acme/wiki-app',
} as const;
export type Source = keyof typeof REPOS;

export const SLACK = { team: 'T0E2E', channel: 'C0E2E', bot: 'UCARAVEL', token: 'xoxb-e2e' };
export const SERVICE_ACCOUNT = { email: 'caravel@acme.test', token: 'atlassian-api-token' };
const SECRETS = {
  slack: 'e2e-slack-signing-secret',
  linear: 'e2e-linear-webhook-secret',
  jiraShared: 'e2e-jira-shared-secret',
  jiraHmac: 'e2e-jira-hmac-secret',
};
const LINEAR_KEY = 'lin_api_e2e';
const DASHBOARD_TOKEN = 'e2e-dashboard-machine-token';
/**
 * The Linear person whose comment names its repository, linked to a GitHub login that
 * collaborates on it: a repository a person names is used only when their GitHub account sees it.
 */
export const LINEAR_PERSON = { linearUserId: 'lin-user-ada', githubLogin: 'ada' } as const;
const CONFLUENCE_BOT = 'acc-caravel';
const APP_BASE_URL = 'https://caravel.e2e.test';

/** Resolves with the thread of an accepted delivery. */
export function accepted(answer: Answer): string {
  expect(answer).toMatchObject({ status: 200, body: { accepted: true } });
  return String(answer.body.threadId);
}

/** A one-paragraph ADF document, as Jira stores a comment's body. */
export function adfParagraph(text: string): unknown {
  return {
    type: 'doc',
    version: 1,
    content: [{ type: 'paragraph', content: [{ type: 'text', text }] }],
  };
}

/** A run as the dashboard API lists it, with its summary. */
export type RunDetail = RunView & { summary?: string | null };

/** The thread's runs as the dashboard API lists them now (none before the thread exists). */
export async function runsOf(apiUrl: string, threadId: string): Promise<RunDetail[]> {
  const response = await fetch(`${apiUrl}/api/threads/${threadId}`, {
    headers: { authorization: `Bearer ${DASHBOARD_TOKEN}` },
  });
  if (response.status !== 200) return [];
  return ((await response.json()) as { runs: RunDetail[] }).runs;
}

/** The thread's runs once one completed or one failed. */
export function runsWhenSettled(apiUrl: string, threadId: string): Promise<RunDetail[]> {
  return eventually(async () => {
    const runs = await runsOf(apiUrl, threadId);
    return runs.some((r) => r.status === 'completed' || r.status === 'failed') ? runs : undefined;
  }, 150_000);
}

/**
 * The SaaS fakes every source and GitHub need, the stateless fix agent behind a fake provider,
 * and the senders that sign each source's deliveries as the real sender does.
 */
export class ChannelsWorld {
  readonly slack = new FakeSlack().addToken(SLACK.token, SLACK.bot).addChannel(SLACK.channel);
  readonly linear = new FakeLinear()
    .addApiKey(LINEAR_KEY)
    .addTeam({ id: 'team-eng', key: 'ENG', name: 'Engineering' });
  readonly jira = new FakeJira().addAccount(SERVICE_ACCOUNT.email, SERVICE_ACCOUNT.token);
  readonly confluence = new FakeConfluence().addAccount(
    SERVICE_ACCOUNT.email,
    SERVICE_ACCOUNT.token,
  );
  readonly connect = new ConnectSigner(APP_BASE_URL);
  readonly slackSender = new SlackSender(SECRETS.slack, SLACK.team);
  readonly linearSender = new LinearSender(SECRETS.linear);
  readonly jiraSender = new JiraRuleSender(SECRETS.jiraShared, SECRETS.jiraHmac);
  readonly confluenceBot = CONFLUENCE_BOT;
  readonly github: GitHubWorld;
  private llm: FakeLlmServer | undefined;
  private fixAgent: FixAgent | undefined;

  /**
   * @param options.repositories more repositories the GitHub App is installed on (beside REPOS')
   * @param options.checks commands the fix agent runs after its edit
   */
  constructor(
    dir: string,
    private readonly options: { repositories?: readonly string[]; checks?: readonly string[] } = {},
  ) {
    this.github = new GitHubWorld(dir, [...Object.values(REPOS), ...(options.repositories ?? [])]);
  }

  /** The fake provider (its requests recorded). */
  get fake(): FakeLlmServer {
    if (!this.llm) throw new Error('the world is not started');
    return this.llm;
  }

  /** The fake Jira's host: the one site Jira rule bodies may name (JIRA_BASE_URL's). */
  get jiraSite(): string {
    return new URL(this.jira.origin).host;
  }

  get agent(): FixAgent {
    if (!this.fixAgent) throw new Error('the world is not started');
    return this.fixAgent;
  }

  /** Starts every fake; resolves with the platform settings that reach them. */
  async start(): Promise<Record<string, string>> {
    this.llm = await startFakeOpenAi();
    this.fixAgent = new FixAgent(this.llm, this.options.checks);
    const [keysUrl] = await Promise.all([
      this.connect.listen(),
      this.slack.listen(),
      this.linear.listen(),
      this.jira.listen(),
      this.confluence.listen(),
    ]);
    return {
      ...(await this.github.start()),
      CARAVEL_MODEL: 'openai-compatible:e2e-fix-agent',
      OPENAI_COMPATIBLE_BASE_URL: this.llm.baseUrl,
      SLACK_SIGNING_SECRET: SECRETS.slack,
      SLACK_BOT_USER_ID: SLACK.bot,
      SLACK_BOT_TOKEN: SLACK.token,
      SLACK_API_URL: this.slack.apiUrl,
      LINEAR_WEBHOOK_SECRET: SECRETS.linear,
      LINEAR_API_KEY: LINEAR_KEY,
      LINEAR_API_URL: this.linear.apiUrl,
      JIRA_SHARED_SECRET: SECRETS.jiraShared,
      JIRA_HMAC_SECRET: SECRETS.jiraHmac,
      JIRA_BASE_URL: this.jira.origin,
      JIRA_EMAIL: SERVICE_ACCOUNT.email,
      JIRA_API_TOKEN: SERVICE_ACCOUNT.token,
      CONFLUENCE_BASE_URL: APP_BASE_URL,
      CONNECT_KEYS_URL: keysUrl,
      CONFLUENCE_EMAIL: SERVICE_ACCOUNT.email,
      CONFLUENCE_API_TOKEN: SERVICE_ACCOUNT.token,
      CONFLUENCE_BOT_ACCOUNT_ID: CONFLUENCE_BOT,
      CONNECT_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      REPOSITORY_ROUTES: `slack:${SLACK.channel}=${REPOS.slack}`,
      DEFAULT_REPOSITORY: REPOS.confluence,
      DASHBOARD_TOKEN,
    };
  }

  /**
   * Links the Linear person to their GitHub login (the identity map, through the dashboard API
   * as an admin would) and makes that login a collaborator on the repository they name.
   */
  async linkLinearPerson(apiUrl: string): Promise<void> {
    this.github.github.collaborators.add(REPOS.linear, LINEAR_PERSON.githubLogin);
    const response = await fetch(`${apiUrl}/api/identities`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${DASHBOARD_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(LINEAR_PERSON),
    });
    expect(response.status).toBeLessThan(300);
  }

  /** Stops the fake provider first, so a held model call cannot hold the platform's shutdown. */
  async closeProvider(): Promise<void> {
    await this.llm?.close();
    this.llm = undefined;
  }

  async close(): Promise<void> {
    await this.closeProvider();
    await Promise.all([
      this.connect.close(),
      this.slack.close(),
      this.linear.close(),
      this.jira.close(),
      this.confluence.close(),
      this.github.close(),
    ]);
  }
}
